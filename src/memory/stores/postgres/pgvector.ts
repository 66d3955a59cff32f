import type pg from 'pg';
import type { VectorHit } from '../../vector-index.ts';
import type { PostgresTables } from './schema.ts';

/** How a store searches vectors: with pgvector's `<=>` in the server, or by brute force in process. */
export type VectorSearch = 'pgvector' | 'in-process';

/**
 * Takes the pgvector path when the server has the `vector` extension (`CREATE EXTENSION IF NOT EXISTS vector`
 * succeeds): adds a `vec_pg vector` column beside `float4[]` `vec` and copies the vectors written without it.
 * Runs in one transaction under the schema's advisory lock, so stores opening at once do it once. Anything that
 * fails (no extension, no right to create it) leaves the database as it was, and the store searches in process.
 */
export async function enablePgvector(
  client: pg.PoolClient,
  schema: string,
  tables: PostgresTables,
): Promise<VectorSearch> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`agency_memory:${schema}`]);
    await client.query('CREATE EXTENSION IF NOT EXISTS vector');
    await client.query(`ALTER TABLE ${tables.entries} ADD COLUMN IF NOT EXISTS vec_pg vector`);
    await client.query(`UPDATE ${tables.entries} SET vec_pg = vec::vector WHERE vec IS NOT NULL AND vec_pg IS NULL`);
    await client.query('COMMIT');
    return 'pgvector';
  } catch {
    await client.query('ROLLBACK');
    return 'in-process';
  }
}

/**
 * The `limit` rows of `scopes` whose vectors of `model` are most similar to `query` (cosine, pgvector's `<=>`), with a
 * similarity of at least `minSimilarity`, most similar first; ties by row.
 */
export async function pgvectorSearch(
  pool: pg.Pool,
  tables: PostgresTables,
  search: { query: Float32Array; model: string; scopes: string[]; limit: number; minSimilarity: number },
): Promise<VectorHit[]> {
  const { rows } = await pool.query<{ rid: string; similarity: number }>(
    `SELECT rid, 1 - (vec_pg <=> $1::float4[]::vector) AS similarity FROM ${tables.entries} ` +
      'WHERE vec_model = $2 AND scope = ANY($3::text[]) AND vec_pg IS NOT NULL ' +
      'AND 1 - (vec_pg <=> $1::float4[]::vector) >= $4 ORDER BY vec_pg <=> $1::float4[]::vector, rid LIMIT $5',
    [Array.from(search.query), search.model, search.scopes, search.minSimilarity, search.limit],
  );
  return rows.map((row) => ({ rowId: Number(row.rid), similarity: Number(row.similarity) }));
}
