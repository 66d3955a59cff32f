import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import { wordsOf } from '../../entry-text.ts';

// Words of one meaning share a dimension, so "automobile" is near "car" without sharing a word.
const MEANINGS: Record<string, number> = { car: 0, automobile: 0, vehicle: 0, cat: 1, kitten: 1, feline: 1 };

/** An embedding model for tests: one dimension per meaning, other words hashed into the rest. */
export function meaningModel(calls: string[][] = []): EmbeddingModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'test',
    modelId: 'meanings',
    maxEmbeddingsPerCall: 16,
    supportsParallelCalls: true,
    async doEmbed({ values }) {
      calls.push(values);
      const embeddings = values.map((text) => {
        const vector = Array.from({ length: 12 }, () => 0.001);
        for (const word of wordsOf(text)) {
          const dim = MEANINGS[word] ?? 2 + ([...word].reduce((sum, c) => sum + c.charCodeAt(0), 0) % 10);
          vector[dim] = (vector[dim] as number) + 1;
        }
        return vector;
      });
      return { embeddings, warnings: [] };
    },
  };
}

