import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4Content,
  type LanguageModelV4FinishReason,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { abortedError, sleep } from '../core/clock.ts';
import { AgencyError } from '../core/errors.ts';
import { estimateTokens, tokensForChars } from '../core/tokens.ts';
import { resultToStreamParts } from '../model/stream-convert.ts';

/** One scripted reply. A string is a plain text answer. */
export type ScriptReply =
  | string
  | {
      text?: string;
      reasoning?: string;
      /** Tool calls; `input` is an object, or a raw string to simulate malformed arguments. */
      toolCalls?: Array<{ name: string; input?: unknown; id?: string }>;
      /** Token counts; by default about one token per 4 characters of prompt and reply. */
      usage?: { inputTokens?: number; outputTokens?: number; reasoningTokens?: number; cachedInputTokens?: number };
      finishReason?: LanguageModelV4FinishReason['unified'];
      /** Wait this long before answering (honours the abort signal). */
      delayMs?: number;
      /** Throw this instead of answering. */
      error?: unknown;
      /** For streaming calls: send the content, then fail the stream with this. */
      streamError?: unknown;
    };

/** A scripted reply, or a function of the call that returns one. */
export type ScriptStep =
  ScriptReply | ((call: LanguageModelV4CallOptions, index: number) => ScriptReply | Promise<ScriptReply>);

/** A call the scripted model received. */
export type ScriptedCall = { mode: 'generate' | 'stream'; options: LanguageModelV4CallOptions };

/** Options for {@link ScriptedModel}. */
export type ScriptedModelOptions = {
  /** @default 'scripted' */
  provider?: string;
  /** @default 'scripted-model' */
  modelId?: string;
};

/**
 * A `LanguageModelV4` that answers from a script (text, tool calls, errors, delays) and records every call it
 * receives in `calls`. Use it in tests and benchmarks.
 *
 * @example
 * const model = new ScriptedModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] }, 'The sum is 3.']);
 * // ... run an agent ...
 * expect(model.calls).toHaveLength(2);
 */
export class ScriptedModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider: string;
  readonly modelId: string;
  readonly supportedUrls = {};
  /** Every call received, in order. */
  readonly calls: ScriptedCall[] = [];
  private readonly script: ScriptStep[] | ((call: LanguageModelV4CallOptions, index: number) => ScriptReply);

  /** Takes a list of replies, or one function that answers every call (an endless script). */
  constructor(
    script: ScriptStep[] | ((call: LanguageModelV4CallOptions, index: number) => ScriptReply),
    { provider = 'scripted', modelId = 'scripted-model' }: ScriptedModelOptions = {},
  ) {
    this.script = script;
    this.provider = provider;
    this.modelId = modelId;
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const reply = await this.next('generate', options);
    return buildResult(reply, options, this.calls.length - 1);
  }

  async doStream(options: LanguageModelV4CallOptions) {
    const reply = await this.next('stream', options);
    // Text arrives word by word, as it would from a provider.
    const parts = resultToStreamParts(buildResult(reply, options, this.calls.length - 1)).flatMap(
      (part): LanguageModelV4StreamPart[] =>
        part.type === 'text-delta'
          ? (part.delta.match(/\S+\s*|\s+/g) ?? ['']).map((delta) => ({ ...part, delta }))
          : [part],
    );
    const streamError = typeof reply === 'string' ? undefined : reply.streamError;
    if (streamError !== undefined) parts.splice(parts.length - 1, 1, { type: 'error', error: streamError });
    return { stream: streamOf(parts, options.abortSignal) };
  }

  private async next(mode: ScriptedCall['mode'], options: LanguageModelV4CallOptions): Promise<ScriptReply> {
    const index = this.calls.length;
    this.calls.push({ mode, options });
    let step: ScriptStep | undefined;
    if (typeof this.script === 'function') step = this.script;
    else step = this.script[index];
    if (step === undefined) {
      throw new AgencyError(
        'script_exhausted',
        `ScriptedModel was called ${index + 1} times, but its script has ${(this.script as ScriptStep[]).length} replies`,
      );
    }
    const reply = typeof step === 'function' ? await step(options, index) : step;
    if (typeof reply !== 'string') {
      if (reply.delayMs) await sleep(reply.delayMs, options.abortSignal);
      if ('error' in reply && reply.error !== undefined) throw reply.error as Error;
    }
    if (options.abortSignal?.aborted) throw abortedError(options.abortSignal);
    return reply;
  }
}

function buildResult(
  reply: ScriptReply,
  options: LanguageModelV4CallOptions,
  index: number,
): LanguageModelV4GenerateResult {
  const spec = typeof reply === 'string' ? { text: reply } : reply;
  const content: LanguageModelV4Content[] = [];
  if (spec.reasoning) content.push({ type: 'reasoning', text: spec.reasoning });
  if (spec.text !== undefined) content.push({ type: 'text', text: spec.text });
  spec.toolCalls?.forEach((call, i) => {
    content.push({
      type: 'tool-call',
      toolCallId: call.id ?? `call_${index}_${i}`,
      toolName: call.name,
      input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}),
    });
  });
  const outputChars =
    (spec.text?.length ?? 0) + (spec.reasoning?.length ?? 0) + JSON.stringify(spec.toolCalls ?? []).length;
  const inputTokens = spec.usage?.inputTokens ?? estimateTokens(JSON.stringify(options.prompt));
  const outputTokens = spec.usage?.outputTokens ?? tokensForChars(outputChars);
  const cacheRead = spec.usage?.cachedInputTokens ?? 0;
  const reasoning = spec.usage?.reasoningTokens ?? 0;
  return {
    content,
    finishReason: {
      unified: spec.finishReason ?? (spec.toolCalls?.length ? 'tool-calls' : 'stop'),
      raw: undefined,
    },
    usage: {
      inputTokens: { total: inputTokens, noCache: inputTokens - cacheRead, cacheRead, cacheWrite: 0 },
      outputTokens: { total: outputTokens, text: outputTokens - reasoning, reasoning },
    },
    warnings: [],
  };
}

function streamOf(
  parts: LanguageModelV4StreamPart[],
  signal: AbortSignal | undefined,
): ReadableStream<LanguageModelV4StreamPart> {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      if (signal?.aborted) return controller.error(abortedError(signal));
      const part = parts[index++];
      if (part) controller.enqueue(part);
      else controller.close();
    },
  });
}

/**
 * A provider HTTP error, as the AI SDK raises it, for scripting failures.
 *
 * @example
 * new ScriptedModel([{ error: apiError(429, { error: { type: 'rate_limit_error' } }, { 'retry-after': '1' }) }, 'ok'])
 */
export function apiError(status: number, body: unknown = {}, headers: Record<string, string> = {}): APICallError {
  return new APICallError({
    message: `HTTP ${status}`,
    url: 'https://scripted.invalid/v1',
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: headers,
    responseBody: JSON.stringify(body),
    data: body,
  });
}
