import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import { afterAll, describe, expect, it } from 'vitest';
import { meaningModel } from '../__fixtures__/meaning-model.ts';
import { recordEmbeddingModel, replayEmbeddingModel } from '../../../testing/index.ts';
import { createDotKernel, createJsDotKernel } from '../../vector-dots.ts';
import { openSqliteMemoryStore } from './sqlite-memory-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'agency-sqlite-vectors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const agent = { kind: 'agent', id: 'a' } as const;

describe('SQLite memory vectors', () => {
  it('finds an entry by meaning when it shares no word with the query, and ranks word matches higher', async () => {
    const calls: string[][] = [];
    const file = join(dir, 'v.db');
    const store = openSqliteMemoryStore({ path: file, embedding: { model: meaningModel(calls), minSimilarity: 0.3 } });
    await store.put(agent, { id: 'car', kind: 'fact', text: 'I drive a car to work' });
    await store.put(agent, { id: 'cat', kind: 'fact', text: 'The kitten sleeps all day' });
    await store.put(agent, { id: 'both', kind: 'fact', text: 'automobile dealers sell every vehicle' });
    expect(calls).toHaveLength(3);
    expect((await store.query([agent], { topK: 5, text: 'automobile' })).map((e) => e.id)).toEqual(['both', 'car']);
    expect((await store.query([agent], { topK: 5, text: 'feline' })).map((e) => e.id)).toEqual(['cat']);
    expect(await store.query([{ kind: 'agent', id: 'other' }], { topK: 5, text: 'feline' })).toEqual([]);
    store.close();
    // Another process (here: another connection) sees the vectors written before it opened and after.
    const again = openSqliteMemoryStore({ path: file, embedding: { model: meaningModel(), minSimilarity: 0.3 } });
    const writer = openSqliteMemoryStore({ path: file, embedding: { model: meaningModel(), minSimilarity: 0.3 } });
    await writer.put(agent, { id: 'late', kind: 'fact', text: 'a feline friend' });
    expect((await again.query([agent], { topK: 5, text: 'kitten' })).map((e) => e.id).sort()).toEqual(['cat', 'late']);
    await writer.delete(agent, 'cat');
    expect((await again.query([agent], { topK: 5, text: 'kitten' })).map((e) => e.id)).toEqual(['late']);
    again.close();
    writer.close();
  });

  it('runs offline from an embedding cassette, finding what the recorded model found', async () => {
    const cassette = join(dir, 'meanings.jsonl');
    const search = async (name: string, model: EmbeddingModelV4) => {
      const store = openSqliteMemoryStore({ path: join(dir, name), embedding: { model, minSimilarity: 0.3 } });
      await store.put(agent, { id: 'car', kind: 'fact', text: 'I drive a car to work' });
      await store.put(agent, { id: 'cat', kind: 'fact', text: 'The kitten sleeps all day' });
      const found = [
        (await store.query([agent], { topK: 5, text: 'automobile' })).map((e) => e.id),
        (await store.query([agent], { topK: 5, text: 'feline' })).map((e) => e.id),
      ];
      store.close();
      return found;
    };
    const recorded = await search('recorded.db', recordEmbeddingModel(meaningModel(), cassette));
    expect(recorded).toEqual([['car'], ['cat']]);
    const replay = replayEmbeddingModel(cassette);
    expect(await search('replayed.db', replay)).toEqual(recorded);
    expect(replay.served).toBe(4);
  });

  it('refuses an embedding that is not an AI SDK embedding model, or a bad minSimilarity', () => {
    const path = join(dir, 'bad.db');
    expect(() => openSqliteMemoryStore({ path, embedding: { model: {} as EmbeddingModelV4 } })).toThrow(
      /embedding\.model/,
    );
    expect(() => openSqliteMemoryStore({ path, embedding: { model: meaningModel(), minSimilarity: 2 } })).toThrow(
      /minSimilarity/,
    );
  });

  it('a model that returns a zero vector is refused at put, and nothing is written', async () => {
    const model = { ...meaningModel(), doEmbed: async () => ({ embeddings: [[0, 0, 0]], warnings: [] }) };
    const store = openSqliteMemoryStore({ path: join(dir, 'zero.db'), embedding: { model } });
    await expect(store.put(agent, { kind: 'fact', text: 'x' })).rejects.toThrow(/zero vector/);
    expect(await store.query([agent], { topK: 5 })).toEqual([]);
    store.close();
  });

  it('the WebAssembly dot kernel agrees with the JavaScript one', () => {
    const [wasm, js] = [createDotKernel(), createJsDotKernel()];
    const rows = 37;
    const stride = 12;
    for (const kernel of [wasm, js]) {
      const matrix = kernel.reserve(rows, stride);
      for (let i = 0; i < matrix.length; i++) matrix[i] = Math.sin(i);
    }
    const query = Float32Array.from({ length: stride }, (_, i) => Math.cos(i));
    const [a, b] = [wasm.dots(query, rows, stride), js.dots(query, rows, stride)];
    for (let r = 0; r < rows; r++) expect(a[r]).toBeCloseTo(b[r] as number, 4);
  });
});
