import pg from 'pg';
import { AgencyError, errorMessage } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { embeddedText, embeddingSettings, embedTexts, type MemoryEmbedding } from '../../embedding.ts';
import { compareText } from '../../entry-text.ts';
import { formatScope, type MemoryScope, type MemoryStore, parseScope } from '../../memory-store.ts';
import { checkEntries, checkEntry, checkScope, columnValue } from '../../store-rules.ts';
import { putBatch } from './postgres-batch.ts';
import { enablePgvector, type VectorSearch } from './pgvector.ts';
import { createPostgresSearch } from './postgres-search.ts';
import { putEntry } from './postgres-write.ts';
import { migrate, tablesOf } from './schema.ts';

/** Options for {@link openPostgresMemoryStore}. */
export type PostgresMemoryStoreOptions = {
  /** `postgres://user:password@host:port/database`; or pass `pool`. */
  connectionString?: string;
  /** A pool to use instead of making one from `connectionString`; the store does not end it. */
  pool?: pg.Pool;
  /** The PostgreSQL schema that holds the store's tables, created when missing. @default 'public' */
  schema?: string;
  /** How many of the newest entries that match a query's words are ranked at most. @default 1000 */
  candidateCap?: number;
  /** Vectors: with a model, entries are embedded at put and a query's text also matches by meaning. */
  embedding?: MemoryEmbedding;
  /** The clock for `createdAt` and `ttl`. @default Date.now */
  now?: () => number;
  /** New entry ids. @default `mem_…` ids */
  generateId?: () => string;
};

/** A {@link MemoryStore} in PostgreSQL. */
export type PostgresMemoryStore = MemoryStore & {
  /** Every scope that holds an entry (expired ones included), sorted. */
  scopes(): Promise<MemoryScope[]>;
  /** With an embedding model, how vectors are searched: `pgvector` when the server has it, else `in-process`. */
  readonly vectorSearch: VectorSearch | undefined;
  /** Ends the pool the store made (not one it was given). Safe to call twice. */
  close(): Promise<void>;
};

/**
 * A {@link MemoryStore} in PostgreSQL (`pg`): full-text search with a `tsvector` per entry (GIN-indexed) ranked by
 * `ts_rank`, tag filters on a GIN-indexed array, each put one transaction holding an advisory lock on its scope (so
 * racing puts of one key leave one entry), and optional vectors: searched by pgvector's `<=>` when the server has the
 * `vector` extension, else kept as `float4[]` and searched by brute-force cosine in process. The schema is versioned
 * and migrated on open.
 *
 * @throws AgencyError `memory_store_unavailable` when the server cannot be reached, `memory_store_invalid` when the
 *   schema is newer than this agency knows.
 * @example
 * const store = await openPostgresMemoryStore({ connectionString: process.env.DATABASE_URL });
 */
export async function openPostgresMemoryStore(options: PostgresMemoryStoreOptions): Promise<PostgresMemoryStore> {
  const { schema = 'public', candidateCap = 1_000, now = Date.now } = options;
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new AgencyError('invalid_argument', `"schema" ${JSON.stringify(schema)} must be letters, digits and "_"`);
  }
  if (!(Number.isInteger(candidateCap) && candidateCap > 0)) {
    throw new AgencyError('invalid_argument', '"candidateCap" must be a positive integer');
  }
  const embedding = embeddingSettings(options.embedding);
  const nextId = options.generateId ?? (() => newId('mem'));
  const pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString, max: 4 });
  const tables = tablesOf(schema);
  const vectorSearch = await connect(pool, schema, options.pool === undefined, embedding !== undefined);
  const pgvector = vectorSearch === 'pgvector';
  const search = createPostgresSearch(pool, { candidateCap, embedding, now, tables, pgvector });

  return {
    async put(scope, entry) {
      checkScope(scope);
      checkEntry(entry);
      const [vector] = embedding === undefined ? [] : await embedTexts(embedding, [embeddedText(entry)]);
      return putEntry(pool, tables, { scope, entry, nextId, now, vector, model: embedding?.name, pgvector });
    },
    async putMany(scope, entries) {
      checkScope(scope);
      checkEntries(entries);
      if (entries.length === 0) return [];
      const vectors = embedding === undefined ? [] : await embedTexts(embedding, entries.map(embeddedText));
      return putBatch(pool, tables, { scope, entries, nextId, now, vectors, model: embedding?.name, pgvector });
    },
    query: (scopes, query) => search.query(scopes, query),
    async delete(scope, id) {
      checkScope(scope);
      if (typeof id !== 'string') throw new AgencyError('invalid_argument', 'Memory entry id must be a string');
      const result = await pool.query(`DELETE FROM ${tables.entries} WHERE scope = $1 AND id = $2`, [
        columnValue(formatScope(scope)),
        columnValue(id),
      ]);
      return (result.rowCount ?? 0) > 0;
    },
    async scopes() {
      const { rows } = await pool.query<{ scope: string }>(`SELECT DISTINCT scope FROM ${tables.entries}`);
      return rows
        .map((row) => JSON.parse(row.scope) as string)
        .sort(compareText)
        .map(parseScope);
    },
    vectorSearch,
    async close() {
      if (options.pool === undefined && !pool.ended) await pool.end();
    },
  };
}

async function connect(
  pool: pg.Pool,
  schema: string,
  owned: boolean,
  vectors: boolean,
): Promise<VectorSearch | undefined> {
  // An idle connection the server closes (a restart, an idle timeout) is dropped by the pool; the next query opens
  // another, so the pool's error event needs no more than a listener.
  if (owned) pool.on('error', () => undefined);
  try {
    const client = await pool.connect().catch((error: unknown) => {
      throw new AgencyError(
        'memory_store_unavailable',
        `PostgreSQL memory store: cannot connect: ${errorMessage(error)}`,
      );
    });
    try {
      await migrate(client, schema, `PostgreSQL memory store (schema ${schema})`);
      return vectors ? await enablePgvector(client, schema, tablesOf(schema)) : undefined;
    } finally {
      client.release();
    }
  } catch (error) {
    if (owned) await pool.end().catch(() => undefined);
    throw error;
  }
}
