import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { EmbeddingModelV4, EmbeddingModelV4Result } from '@ai-sdk/provider';
import { abortedError } from '../../core/clock.ts';
import { decodeJson } from '../../core/json-codec.ts';
import { createCallMatcher } from './call-matcher.ts';
import { type CassetteHeader, normalizeRequest } from './cassette-format.ts';
import { readCassette } from './read-cassette.ts';
import { type ReplayModelOptions, revive } from './replay-model.ts';

/** An embedding model that serves a cassette, plus what it has served. */
export type ReplayEmbeddingModel = EmbeddingModelV4 & {
  /** The cassette's header. */
  readonly header: CassetteHeader;
  /** How many calls the cassette holds. */
  readonly callCount: number;
  /** How many calls have been served so far. */
  readonly served: number;
};

/**
 * Serves a cassette recorded by `recordEmbeddingModel`, offline and deterministically: each call's texts must match
 * a recorded call's (as `replayModel` matches chat requests, after the same redaction), and get its vectors back.
 * A memory store given this model runs its vector search without a network.
 *
 * @throws AgencyError `cassette_not_found`; `cassette_corrupt` naming the bad line, or when the cassette holds chat
 *   calls; on a call, `cassette_mismatch` naming the call and the first differing field, or `cassette_exhausted`.
 * @example
 * const store = openSqliteMemoryStore({ path, embedding: { model: replayEmbeddingModel('test/cassettes/vectors.jsonl') } });
 */
export function replayEmbeddingModel(path: string, options: ReplayModelOptions = {}): ReplayEmbeddingModel {
  const file = resolve(options.cwd ?? process.cwd(), path);
  const { header, calls } = readCassette(file, readFileSync);
  const matcher = createCallMatcher(file, calls, options, 'embedding');
  return {
    specificationVersion: 'v4',
    provider: header.provider,
    modelId: header.modelId,
    maxEmbeddingsPerCall: header.maxEmbeddingsPerCall,
    // One call at a time, so calls reach the cassette in the order they are made.
    supportsParallelCalls: false,
    header,
    callCount: calls.length,
    get served() {
      return matcher.served;
    },
    async doEmbed(callOptions) {
      if (callOptions.abortSignal?.aborted) throw abortedError(callOptions.abortSignal);
      const { call } = matcher.next(normalizeRequest(callOptions));
      if (call.error !== undefined) throw revive(call.error);
      return decodeJson(call.response) as EmbeddingModelV4Result;
    },
  };
}
