import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { vector } from '@electric-sql/pglite-pgvector';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { meaningModel } from '../__fixtures__/meaning-model.ts';
import { openPostgresMemoryStore, type PostgresMemoryStore } from './postgres-memory-store.ts';

// PostgreSQL in WebAssembly (PGlite), with and without the pgvector extension, driven through a real pg.Pool.
const dir = mkdtempSync(join(tmpdir(), 'agency-pgvector-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const agent = { kind: 'agent', id: 'a' } as const;
const other = { kind: 'agent', id: 'b' } as const;
const embedding = { model: meaningModel(), minSimilarity: 0.3 };

async function openOn(withPgvector: boolean, dataDir?: string) {
  const db = await PGlite.create({
    ...(dataDir === undefined ? {} : { dataDir }),
    ...(withPgvector ? { extensions: { vector } } : {}),
  });
  const pool = new pg.Pool(createPgConfig(db));
  // One fixed clock, so the two stores break ties of score alike (by createdAt, then id).
  const store = await openPostgresMemoryStore({ pool, embedding, now: () => 1_767_225_600_000 });
  return {
    store,
    pool,
    async close() {
      await store.close();
      await pool.end();
      await db.close();
    },
  };
}

const WORDS = ['car', 'automobile', 'vehicle', 'cat', 'kitten', 'feline', 'road', 'garden', 'milk', 'engine', 'sleep'];
const QUERIES = ['automobile', 'feline', 'vehicle engine', 'kitten milk', 'garden', 'sleep road', 'nothing here'];

// The same 60 entries in two scopes, text made of meaning words and others.
async function fill(store: PostgresMemoryStore): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const words = [WORDS[i % WORDS.length], WORDS[(i * 7 + 3) % WORDS.length], `w${i}`];
    await store.put(i % 4 === 0 ? other : agent, { id: `e${i}`, kind: 'fact', text: words.join(' ') });
  }
}

async function topK(store: PostgresMemoryStore, text: string, k = 5): Promise<string[]> {
  return (await store.query([agent], { topK: k, text })).map((entry) => entry.id);
}

// PGlite starts a database in WebAssembly per store: slow on a loaded machine.
describe('PostgreSQL memory vectors with pgvector (PGlite)', { timeout: 120_000 }, () => {
  it('stores vectors in a pgvector column and finds by meaning with <=> in the server', async () => {
    const { store, pool, close } = await openOn(true);
    expect(store.vectorSearch).toBe('pgvector');
    await store.put(agent, { id: 'car', kind: 'fact', text: 'I drive a car to work' });
    await store.put(agent, { id: 'cat', kind: 'fact', text: 'The kitten sleeps all day' });
    await store.put(other, { id: 'elsewhere', kind: 'fact', text: 'a feline of another agent' });
    const { rows } = await pool.query<{ n: string; t: string }>(
      'SELECT count(vec_pg) AS n, format_type(atttypid, atttypmod) AS t FROM agency_memory_entries, pg_attribute ' +
        "WHERE attrelid = 'agency_memory_entries'::regclass AND attname = 'vec_pg' GROUP BY t",
    );
    expect(rows).toEqual([{ n: '3', t: 'vector' }]);
    expect(await topK(store, 'automobile')).toEqual(['car']);
    expect(await topK(store, 'feline')).toEqual(['cat']);
    await store.delete(agent, 'cat');
    expect(await topK(store, 'feline')).toEqual([]);
    await close();
  });

  it('returns the same top-k as the in-process search on the same data', async () => {
    const withPg = await openOn(true);
    const without = await openOn(false);
    expect([withPg.store.vectorSearch, without.store.vectorSearch]).toEqual(['pgvector', 'in-process']);
    await fill(withPg.store);
    await fill(without.store);
    for (const text of QUERIES) {
      for (const k of [1, 3, 10]) {
        const [a, b] = [await topK(withPg.store, text, k), await topK(without.store, text, k)];
        expect(a, `${text} top ${k}`).toEqual(b);
      }
    }
    expect(await topK(withPg.store, 'automobile', 10)).not.toEqual([]);
    await Promise.all([withPg.close(), without.close()]);
  });

  it('copies vectors written without pgvector into its column when the extension appears', async () => {
    const dataDir = join(dir, 'upgrade');
    const before = await openOn(false, dataDir);
    expect(before.store.vectorSearch).toBe('in-process');
    await fill(before.store);
    const expected = await Promise.all(QUERIES.map((text) => topK(before.store, text)));
    await before.close();
    const after = await openOn(true, dataDir);
    expect(after.store.vectorSearch).toBe('pgvector');
    const { rows } = await after.pool.query<{ n: string }>('SELECT count(vec_pg) AS n FROM agency_memory_entries');
    expect(rows[0]?.n).toBe('60');
    expect(await Promise.all(QUERIES.map((text) => topK(after.store, text)))).toEqual(expected);
    await after.close();
  });
});
