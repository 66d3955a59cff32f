import type pg from 'pg';
import { formatScope, type MemoryEntry, type MemoryScope, type StoredMemoryEntry } from '../../memory-store.ts';
import { columnValue, storedEntryOf } from '../../store-rules.ts';
import { insertSql, rowOf } from './postgres-write.ts';
import type { PostgresTables } from './schema.ts';

/** What one batch writes: `vectors[i]` is entry i's vector (none without a model). */
export type BatchInput = {
  scope: MemoryScope;
  entries: readonly MemoryEntry[];
  nextId: () => string;
  now: () => number;
  vectors: ReadonlyArray<Float32Array | undefined>;
  model: string | undefined;
  pgvector: boolean;
};

// Rows per INSERT: 12 parameters each, well under PostgreSQL's 65,535 parameters per statement.
const ROWS_PER_INSERT = 1_000;

/**
 * Writes a batch in one transaction under the scope's advisory lock (the lock a single put takes), as a put of
 * each entry in order would: ids are resolved against the rows that hold the batch's ids and keys, those rows are
 * deleted in one statement, and the entries that are left (a later entry of the batch replaces an earlier one with
 * its id or key) are inserted with multi-row INSERTs.
 */
export async function putBatch(pool: pg.Pool, tables: PostgresTables, input: BatchInput): Promise<StoredMemoryEntry[]> {
  const scopeKey = columnValue(formatScope(input.scope));
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`agency_memory_scope:${scopeKey}`]);
    const ids = input.entries.flatMap((entry) => (entry.id === undefined ? [] : [columnValue(entry.id)]));
    const keys = input.entries.flatMap((entry) => (entry.key === undefined ? [] : [columnValue(entry.key)]));
    const { rows } = await client.query<{ id: string; key: string | null }>(
      `SELECT id, key FROM ${tables.entries} WHERE scope = $1 AND (id = ANY($2::text[]) OR key = ANY($3::text[]))`,
      [scopeKey, ids, keys],
    );
    const plan = planBatch(rows, input);
    await client.query(`DELETE FROM ${tables.entries} WHERE scope = $1 AND (id = ANY($2::text[]) OR key = ANY($3))`, [
      scopeKey,
      plan.stored.map((stored) => columnValue(stored.id)),
      keys,
    ]);
    const kept = [...plan.kept.values()];
    for (let from = 0; from < kept.length; from += ROWS_PER_INSERT) {
      const chunk = kept.slice(from, from + ROWS_PER_INSERT);
      const values = chunk.flatMap(({ stored, vector }) => rowOf(scopeKey, stored, { ...input, vector }));
      await client.query(insertSql(tables, input.pgvector, chunk.length), values);
    }
    await client.query('COMMIT');
    return plan.stored;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

type Kept = { stored: StoredMemoryEntry; vector: Float32Array | undefined };

/**
 * Resolves a batch as puts in order would: an entry takes its own id, else the id of the entry that holds its key
 * (in the table or earlier in the batch), else a new one; it replaces the entry with its id and the one with its key.
 * `existing` are the table's rows holding the batch's ids or keys (as column values). Returns every entry as stored,
 * and the ones left at the end by id.
 */
export function planBatch(
  existing: ReadonlyArray<{ id: string; key: string | null }>,
  input: Pick<BatchInput, 'scope' | 'entries' | 'nextId' | 'now' | 'vectors'>,
): { stored: StoredMemoryEntry[]; kept: Map<string, Kept> } {
  const slotOf = new Map<string, string>(); // key → id of the entry that holds it
  const keyOf = new Map<string, string | undefined>(); // id → its key
  for (const row of existing) {
    const id = JSON.parse(row.id) as string;
    const key = row.key === null ? undefined : (JSON.parse(row.key) as string);
    keyOf.set(id, key);
    if (key !== undefined) slotOf.set(key, id);
  }
  const kept = new Map<string, Kept>();
  const drop = (id: string | undefined) => {
    if (id === undefined) return;
    const key = keyOf.get(id);
    if (key !== undefined && slotOf.get(key) === id) slotOf.delete(key);
    keyOf.delete(id);
    kept.delete(id);
  };
  const stored = input.entries.map((entry, index) => {
    const holder = entry.key === undefined ? undefined : slotOf.get(entry.key);
    const id = entry.id ?? holder ?? input.nextId();
    drop(id);
    drop(holder);
    const one = storedEntryOf(input.scope, entry, id, input.now);
    kept.set(id, { stored: one, vector: input.vectors[index] });
    keyOf.set(id, entry.key);
    if (entry.key !== undefined) slotOf.set(entry.key, id);
    return one;
  });
  return { stored, kept };
}
