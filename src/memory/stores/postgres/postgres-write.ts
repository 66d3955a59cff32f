import type pg from 'pg';
import { estimateTokens } from '../../../core/tokens.ts';
import { formatScope, type MemoryEntry, type MemoryScope, type StoredMemoryEntry } from '../../memory-store.ts';
import { columnValue, expiresAt, storedEntryOf } from '../../store-rules.ts';
import type { PostgresTables } from './schema.ts';
import { tsvectorOf } from './ts-vector.ts';

/** What one put writes. */
export type PutInput = {
  scope: MemoryScope;
  entry: MemoryEntry;
  nextId: () => string;
  now: () => number;
  vector: Float32Array | undefined;
  model: string | undefined;
  /** Whether the table has pgvector's `vec_pg` column, which gets the vector too. */
  pgvector: boolean;
};

/**
 * Writes one entry in one transaction that holds an advisory lock on its scope, so puts of one scope (from any
 * process) replace by id and key one after another: the entry with its id, or the one holding its key, is replaced.
 */
export async function putEntry(pool: pg.Pool, tables: PostgresTables, input: PutInput): Promise<StoredMemoryEntry> {
  const scopeKey = columnValue(formatScope(input.scope));
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`agency_memory_scope:${scopeKey}`]);
    const { entry } = input;
    const sameKey =
      entry.key === undefined
        ? undefined
        : (
            await client.query<{ id: string }>(`SELECT id FROM ${tables.entries} WHERE scope = $1 AND key = $2`, [
              scopeKey,
              columnValue(entry.key),
            ])
          ).rows[0];
    const id = entry.id ?? (sameKey === undefined ? input.nextId() : (JSON.parse(sameKey.id) as string));
    await client.query(`DELETE FROM ${tables.entries} WHERE scope = $1 AND (id = $2 OR key = $3)`, [
      scopeKey,
      columnValue(id),
      entry.key === undefined ? null : columnValue(entry.key),
    ]);
    const stored = storedEntryOf(input.scope, entry, id, input.now);
    await client.query(insertSql(tables, input.pgvector), rowOf(scopeKey, stored, input));
    await client.query('COMMIT');
    return stored;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The INSERT of `rows` rows (12 parameters each, in the order {@link rowOf} gives them). */
export function insertSql(tables: PostgresTables, pgvector: boolean, rows = 1): string {
  const values = Array.from({ length: rows }, (_, row) => {
    const $ = (n: number) => `$${row * 12 + n}`;
    return (
      `(${$(1)}, ${$(2)}, ${$(3)}, ${$(4)}, ${$(5)}, ${$(6)}, ${$(7)}, ${$(8)}, ${$(9)}::tsvector, ${$(10)}, ${$(11)}, ` +
      `CASE WHEN ${$(12)}::float4[] IS NULL THEN NULL ELSE nextval('${tables.vecSeq}') END, ${$(12)}` +
      `${pgvector ? `, ${$(12)}::float4[]::vector` : ''})`
    );
  });
  return (
    `INSERT INTO ${tables.entries} (scope, id, key, kind, tags, created_ms, expires_ms, tokens, tsv, doc, ` +
    `vec_model, vec_seq, vec${pgvector ? ', vec_pg' : ''}) VALUES ${values.join(', ')}`
  );
}

/** The parameters of one entry's row in {@link insertSql}. */
export function rowOf(
  scopeKey: string,
  stored: StoredMemoryEntry,
  input: Pick<PutInput, 'vector' | 'model'>,
): unknown[] {
  const hasVector = input.vector !== undefined && input.model !== undefined;
  return [
    scopeKey,
    columnValue(stored.id),
    stored.key === undefined ? null : columnValue(stored.key),
    columnValue(stored.kind),
    (stored.tags ?? []).map(columnValue),
    Date.parse(stored.metadata.createdAt),
    expiresAt(stored),
    estimateTokens(stored.text),
    tsvectorOf(stored),
    JSON.stringify(stored),
    hasVector ? input.model : null,
    hasVector ? Array.from(input.vector as Float32Array) : null,
  ];
}
