import type { EmbeddingModelV4 } from '@ai-sdk/provider';

// Deterministic data for the memory benchmark: entries of 30 words from a 20,000-word vocabulary drawn with a Zipf
// skew, so a few words are in most entries (broad queries) and most words are rare; and 768-dimension vectors.

const VOCABULARY = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x`);

/** A small fast PRNG (mulberry32), so every run writes the same entries. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The text of entry `i`: 30 Zipf-drawn words, and `sel<k>` in 1 entry of 10,000 (a selective word). */
export function entryText(i: number): string {
  const next = random(i + 1);
  const words: string[] = [];
  for (let w = 0; w < 30; w++) words.push(VOCABULARY[Math.floor(VOCABULARY.length ** next()) - 1] as string);
  words.push(selectiveWord(i));
  return words.join(' ');
}

/** The selective word of entry `i`: one entry in 10,000 has it. */
export const selectiveWord = (i: number) => `sel${i % 10_000}`;

/** A query of one rare word: it matches `size / 10000` entries (at least one). */
export const selectiveQuery = (i: number, size: number) => `sel${(i * 7919) % Math.min(size, 10_000)}`;
/** A query of the two commonest words: each is in most entries, so every match is a candidate. */
export const broadQuery = () => `${VOCABULARY[0]} ${VOCABULARY[1]}`;

/** A vector of `dims` floats, the same for the same `seed`. */
export function vectorFor(seed: number, dims: number): number[] {
  const next = random(seed * 31 + 7);
  return Array.from({ length: dims }, () => next() * 2 - 1);
}

/**
 * An embedding model that returns a stored vector per text: an entry's text maps to its index (set before the put),
 * and any other text to a vector from its hash. It costs next to nothing, so the benchmark times the search.
 */
export function benchEmbeddingModel(dims: number): EmbeddingModelV4 & { next: number } {
  const model = {
    specificationVersion: 'v4' as const,
    provider: 'bench',
    modelId: `fixed-${dims}`,
    maxEmbeddingsPerCall: 2048,
    supportsParallelCalls: true,
    next: 0,
    async doEmbed({ values }: { values: string[] }) {
      return { embeddings: values.map(() => vectorFor(model.next++, dims)), warnings: [] };
    },
  };
  return model;
}
