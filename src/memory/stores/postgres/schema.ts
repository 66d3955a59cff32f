import type { PoolClient } from 'pg';
import { AgencyError } from '../../../core/errors.ts';

/**
 * The schema, one migration per version; `agency_memory_schema.version` holds the version a database is at. A
 * migration runs once, in a transaction holding an advisory lock, so two processes opening one database at once
 * migrate it once. Add a version, never edit one.
 *
 * - `agency_memory_entries`: one row per entry. `doc` is the stored entry as JSON text (which escapes NUL and lone
 *   surrogates, which PostgreSQL text cannot hold, so an entry comes back exactly as put). `scope`, `id`, `key`,
 *   `kind` and `tags` hold JSON strings of their values for the same reason. `tsv` is built by agency from the
 *   entry's words (labels at weight A, text at weight B), so matching does not depend on the server's locale.
 * - `vec`: the entry's unit vector as float4[], with the model that made it and a `seq` that grows with every write.
 *   Where the server has pgvector, the store adds `vec_pg vector` on open (see `enablePgvector`), outside these
 *   versions, since it depends on the server and not on the agency.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE agency_memory_entries (
     rid bigserial PRIMARY KEY,
     scope text NOT NULL,
     id text NOT NULL,
     key text,
     kind text NOT NULL,
     tags text[] NOT NULL,
     created_ms bigint NOT NULL,
     expires_ms bigint,
     tokens integer NOT NULL,
     tsv tsvector NOT NULL,
     doc text NOT NULL,
     vec_model text,
     vec_seq bigint,
     vec float4[]
   );
   CREATE UNIQUE INDEX agency_memory_entries_id ON agency_memory_entries (scope, id);
   CREATE UNIQUE INDEX agency_memory_entries_key ON agency_memory_entries (scope, key) WHERE key IS NOT NULL;
   CREATE INDEX agency_memory_entries_recent ON agency_memory_entries (scope, created_ms DESC);
   CREATE INDEX agency_memory_entries_tsv ON agency_memory_entries USING gin (tsv);
   CREATE INDEX agency_memory_entries_tags ON agency_memory_entries USING gin (tags);
   CREATE SEQUENCE agency_memory_vec_seq;
   CREATE INDEX agency_memory_entries_vec_seq ON agency_memory_entries (vec_seq) WHERE vec_seq IS NOT NULL;`,
];

/** The schema version this agency writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database's schema `schema` up to {@link SCHEMA_VERSION}, creating the schema when missing.
 * @throws AgencyError `memory_store_invalid` when the database is at a newer version.
 */
export async function migrate(client: PoolClient, schema: string, where: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`agency_memory:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
    await client.query('CREATE TABLE IF NOT EXISTS agency_memory_schema (version integer NOT NULL)');
    const rows = (await client.query<{ version: number }>('SELECT version FROM agency_memory_schema')).rows;
    const version = rows[0]?.version ?? 0;
    if (version > SCHEMA_VERSION) {
      throw new AgencyError(
        'memory_store_invalid',
        `${where}: the memory store is at schema version ${version}, and this agency knows up to ${SCHEMA_VERSION}; ` +
          'open it with a newer agency',
        { details: { version } },
      );
    }
    for (let next = version; next < SCHEMA_VERSION; next++) await client.query(MIGRATIONS[next] as string);
    if (rows.length === 0) await client.query('INSERT INTO agency_memory_schema VALUES ($1)', [SCHEMA_VERSION]);
    else await client.query('UPDATE agency_memory_schema SET version = $1', [SCHEMA_VERSION]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

/** A PostgreSQL identifier, quoted. Names are checked by the store (letters, digits and `_`) before they get here. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The store's table and sequence, qualified by its schema. */
export type PostgresTables = { entries: string; vecSeq: string };

/** The qualified names of the store's table and sequence in `schema`. */
export function tablesOf(schema: string): PostgresTables {
  return {
    entries: `${quoteIdent(schema)}.agency_memory_entries`,
    vecSeq: `${quoteIdent(schema)}.agency_memory_vec_seq`,
  };
}
