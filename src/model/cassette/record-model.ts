import { promptRefsOf } from '../prompt-refs.ts';
import { resolve } from 'node:path';
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { encodeJson } from '../../core/json-codec.ts';
import { modelEndpoint, setModelEndpoint } from '../../core/model-prices.ts';
import { defaultRedactor, type Redactor } from '../../core/redact.ts';
import { type CassetteCall, normalizeRequest, requestDigest } from './cassette-format.ts';
import { cassetteWriter, countCalls, keepHeaders, withoutBody } from './cassette-writer.ts';

/** Options for {@link recordModel}. */
export type RecordModelOptions = {
  /** Keep the calls already in the file and add after them, instead of starting a new cassette. @default false */
  append?: boolean;
  /** The clock for the header's `createdAt`. @default Date.now */
  now?: () => number;
  /**
   * Scrubs secrets from requests, responses, stream parts and errors before they are written. The digest is taken
   * over the redacted request; `replayModel` redacts live requests the same way before comparing them.
   * @default defaultRedactor
   */
  redactor?: Redactor;
};

/**
 * Wraps any model so that each call is appended to a JSONL cassette at `path`: the request, its digest, and the
 * full response or every stream part with usage. Failed calls are recorded too, so replays reproduce them.
 * Request headers are never recorded, only non-sensitive response headers are kept, and everything written passes
 * through a redactor first (API keys, bearer tokens, registered credentials…).
 *
 * @example
 * const model = recordModel(resolveModel('openai:gpt-4o'), 'test/cassettes/weather.jsonl');
 */
export function recordModel(model: LanguageModelV4, path: string, options: RecordModelOptions = {}): LanguageModelV4 {
  const file = resolve(path);
  const redactor = options.redactor ?? defaultRedactor;
  let nextIndex = options.append ? countCalls(file) : 0;
  const write = cassetteWriter(file, model, options, redactor);

  const begin = (options: LanguageModelV4CallOptions, mode: CassetteCall['mode']) => {
    const request = redactor.redact(normalizeRequest(options));
    const prompts = promptRefsOf(options.providerOptions);
    return { type: 'call' as const, index: nextIndex++, mode, digest: requestDigest(request), request, prompts };
  };

  const recording: LanguageModelV4 = {
    specificationVersion: 'v4',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    async doGenerate(callOptions) {
      const call = begin(callOptions, 'generate');
      try {
        const result = await model.doGenerate(callOptions);
        const { request: _request, ...kept } = result;
        const response = result.response
          ? { ...withoutBody(result.response), headers: keepHeaders(result.response.headers) }
          : undefined;
        write({ ...call, response: encodeJson({ ...kept, response }) });
        return result;
      } catch (error) {
        write({ ...call, error: encodeJson(error) });
        throw error;
      }
    },
    async doStream(callOptions) {
      const call = begin(callOptions, 'stream');
      let opened: Awaited<ReturnType<LanguageModelV4['doStream']>>;
      try {
        opened = await model.doStream(callOptions);
      } catch (error) {
        write({ ...call, error: encodeJson(error) });
        throw error;
      }
      const parts: LanguageModelV4StreamPart[] = [];
      let written = false;
      const finish = (error?: unknown) => {
        if (written) return;
        written = true;
        write({
          ...call,
          stream: joinRedactedDeltas(parts, redactor).map(encodeJson),
          ...(error === undefined ? {} : { error: encodeJson(error) }),
        });
      };
      const tee = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        transform(part, controller) {
          if (part.type !== 'raw') parts.push(part);
          controller.enqueue(part);
        },
        flush: () => finish(),
      });
      const stream = opened.stream.pipeThrough(tee);
      return { ...opened, stream: withCancelHook(stream, finish) };
    },
  };
  // Recording changes nothing about the model: an OpenAI-compatible one keeps the host its price is found by.
  const endpoint = modelEndpoint(model);
  if (endpoint) setModelEndpoint(recording, endpoint);
  return recording;
}

type DeltaPart = Extract<LanguageModelV4StreamPart, { type: 'text-delta' | 'reasoning-delta' | 'tool-input-delta' }>;
const DELTA_TYPES = new Set(['text-delta', 'reasoning-delta', 'tool-input-delta']);

// A secret streamed across several deltas matches in none of them alone. Each run of deltas of one block is redacted
// as a whole, and a run that held a secret is recorded as a single delta; other runs keep their chunking.
function joinRedactedDeltas(parts: LanguageModelV4StreamPart[], redactor: Redactor): LanguageModelV4StreamPart[] {
  const out: LanguageModelV4StreamPart[] = [];
  for (let i = 0; i < parts.length;) {
    const part = parts[i] as LanguageModelV4StreamPart;
    if (!DELTA_TYPES.has(part.type)) {
      out.push(part);
      i++;
      continue;
    }
    const first = part as DeltaPart;
    const run: DeltaPart[] = [];
    for (; i < parts.length; i++) {
      const next = parts[i] as DeltaPart;
      if (next.type !== first.type || next.id !== first.id) break;
      run.push(next);
    }
    const joined = run.map((delta) => delta.delta).join('');
    const redacted = redactor.redactText(joined);
    if (redacted === joined) out.push(...run);
    else out.push({ ...first, delta: redacted });
  }
  return out;
}

function withCancelHook(
  stream: ReadableStream<LanguageModelV4StreamPart>,
  onEnd: (error?: unknown) => void,
): ReadableStream<LanguageModelV4StreamPart> {
  const reader = stream.getReader();
  return new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        onEnd(error);
        controller.error(error);
      }
    },
    async cancel(reason) {
      onEnd(reason ?? new Error('stream cancelled by the consumer'));
      await reader.cancel(reason);
    },
  });
}
