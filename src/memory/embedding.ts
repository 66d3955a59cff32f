import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import { AgencyError } from '../core/errors.ts';
import { indexedText, indexSafe } from './store-rules.ts';
import type { MemoryEntry } from './memory-store.ts';

/**
 * Vectors for a store: an AI SDK embedding model (any provider's `EmbeddingModelV4`, e.g.
 * `openai.embedding('text-embedding-3-small')`, or one replayed from a cassette with `replayEmbeddingModel`).
 * With it, a query's text is matched by meaning as well as by words.
 */
export type MemoryEmbedding = {
  model: EmbeddingModelV4;
  /**
   * The cosine similarity from which an entry counts as matching a query's text by meaning alone (entries that
   * share a word with it always match). @default 0.3
   */
  minSimilarity?: number;
  /** Asked of models that can shorten their vectors (`dimensions` in the call). @default the model's own */
  dimensions?: number;
};

/** The embedding settings a store works with. */
export type EmbeddingSettings = {
  model: EmbeddingModelV4;
  minSimilarity: number;
  dimensions: number | undefined;
  name: string;
};

/** Checks and completes a store's `embedding` option. */
export function embeddingSettings(embedding: MemoryEmbedding | undefined): EmbeddingSettings | undefined {
  if (embedding === undefined) return undefined;
  const { model, minSimilarity = 0.3, dimensions } = embedding;
  if (typeof model?.doEmbed !== 'function' || model.specificationVersion !== 'v4') {
    throw new AgencyError(
      'invalid_argument',
      '"embedding.model" must be an AI SDK EmbeddingModelV4, e.g. openai.embedding("text-embedding-3-small")',
    );
  }
  if (!(minSimilarity >= -1 && minSimilarity <= 1)) {
    throw new AgencyError('invalid_argument', '"embedding.minSimilarity" must be between -1 and 1');
  }
  return { model, minSimilarity, dimensions, name: `${model.provider}:${model.modelId}` };
}

/** The text of an entry that is embedded: its title, key and tags, then its text. */
export function embeddedText(entry: MemoryEntry): string {
  const { labels, body } = indexedText(entry);
  return indexSafe(labels.trim() === '' ? body : `${labels}\n${body}`);
}

/**
 * Embeds texts and returns unit-length vectors (so cosine similarity is a dot product), in calls of at most the
 * model's `maxEmbeddingsPerCall` texts.
 * @throws AgencyError `invalid_argument` when the model returns the wrong number of vectors or an empty one.
 */
export async function embedTexts(settings: EmbeddingSettings, texts: string[]): Promise<Float32Array[]> {
  const limit = (await settings.model.maxEmbeddingsPerCall) ?? texts.length;
  const size = Number.isInteger(limit) && limit > 0 ? limit : texts.length;
  const vectors: Float32Array[] = [];
  for (let from = 0; from < texts.length; from += size) {
    vectors.push(...(await embedCall(settings, texts.slice(from, from + size))));
  }
  return vectors;
}

async function embedCall(settings: EmbeddingSettings, texts: string[]): Promise<Float32Array[]> {
  const { embeddings } = await settings.model.doEmbed({
    values: texts,
    ...(settings.dimensions === undefined ? {} : { dimensions: settings.dimensions }),
  });
  if (embeddings.length !== texts.length) {
    throw new AgencyError(
      'invalid_argument',
      `Embedding model ${settings.name} returned ${embeddings.length} vectors for ${texts.length} texts`,
    );
  }
  return embeddings.map((values) => normalize(Float32Array.from(values), settings.name));
}

function normalize(vector: Float32Array, name: string): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (vector.length === 0 || !(sum > 0) || !Number.isFinite(sum)) {
    throw new AgencyError('invalid_argument', `Embedding model ${name} returned an empty or zero vector`);
  }
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) * scale;
  return vector;
}

/** A vector as bytes, for a BLOB or bytea column (little-endian float32). */
export function vectorBytes(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A vector read back from {@link vectorBytes}. */
export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

/**
 * How many of the most similar vectors join a query's candidates: four times `topK` (at least 100), so filters and
 * a token budget still leave enough, and never more than the store's candidate cap.
 */
export function vectorCandidateLimit(topK: number, candidateCap: number): number {
  return Math.min(candidateCap, Math.max(100, topK * 4));
}
