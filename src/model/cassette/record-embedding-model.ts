import { resolve } from 'node:path';
import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import { encodeJson } from '../../core/json-codec.ts';
import { defaultRedactor } from '../../core/redact.ts';
import { normalizeRequest, requestDigest } from './cassette-format.ts';
import { cassetteWriter, countCalls, keepHeaders, withoutBody } from './cassette-writer.ts';
import type { RecordModelOptions } from './record-model.ts';

/**
 * Wraps an embedding model so that each `doEmbed` call is appended to a cassette at `path`, as `recordModel` does
 * for language models: the request (the texts, `dimensions`, provider options; never headers), its digest, and the
 * vectors with usage, or the error. Everything written passes through the redactor first, texts included.
 *
 * @example
 * const model = recordEmbeddingModel(openai.embedding('text-embedding-3-small'), 'test/cassettes/vectors.jsonl');
 */
export function recordEmbeddingModel(
  model: EmbeddingModelV4,
  path: string,
  options: RecordModelOptions = {},
): EmbeddingModelV4 {
  const file = resolve(path);
  const redactor = options.redactor ?? defaultRedactor;
  let nextIndex = options.append ? countCalls(file) : 0;
  // The header records the limit of texts per call, which a model may only know asynchronously. The writer is made
  // once, before any call waits, so calls made in parallel share it and the header is written once.
  let writer: Promise<ReturnType<typeof cassetteWriter>> | undefined;
  return {
    specificationVersion: 'v4',
    provider: model.provider,
    modelId: model.modelId,
    maxEmbeddingsPerCall: model.maxEmbeddingsPerCall,
    supportsParallelCalls: model.supportsParallelCalls,
    async doEmbed(callOptions) {
      const request = redactor.redact(normalizeRequest(callOptions));
      const call = {
        type: 'call' as const,
        index: nextIndex++,
        mode: 'embed' as const,
        digest: requestDigest(request),
      };
      writer ??= limitOf(model).then((maxEmbeddingsPerCall) =>
        cassetteWriter(
          file,
          { provider: model.provider, modelId: model.modelId, maxEmbeddingsPerCall },
          options,
          redactor,
        ),
      );
      const write = await writer;
      try {
        const result = await model.doEmbed(callOptions);
        const response = result.response && {
          ...withoutBody(result.response),
          headers: keepHeaders(result.response.headers),
        };
        write({ ...call, request, response: encodeJson({ ...result, response }) });
        return result;
      } catch (error) {
        write({ ...call, request, error: encodeJson(error) });
        throw error;
      }
    },
  };
}

async function limitOf(model: EmbeddingModelV4): Promise<number | undefined> {
  const limit = await model.maxEmbeddingsPerCall;
  return typeof limit === 'number' && Number.isInteger(limit) && limit > 0 ? limit : undefined;
}
