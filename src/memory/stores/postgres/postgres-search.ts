import type pg from 'pg';
import { embedTexts, type EmbeddingSettings, vectorCandidateLimit } from '../../embedding.ts';
import type { MemoryQuery, MemoryScope, StoredMemoryEntry } from '../../memory-store.ts';
import {
  type Candidate,
  checkQuery,
  columnValue,
  compareCandidates,
  pickWithinBudget,
  queryWords,
  scopeKeysOf,
} from '../../store-rules.ts';
import { createVectorIndex } from '../../vector-index.ts';
import { pgvectorSearch } from './pgvector.ts';
import type { PostgresTables } from './schema.ts';
import { tsqueryOf } from './ts-vector.ts';

type Row = { rid: string; id: string; scope: string; created_ms: string; tokens: number };
type Ranked = Candidate & { rid: string };
type Filters = { where: string; params: unknown[] };

const ROW_COLUMNS = 'rid, id, scope, created_ms, tokens';
const PAGE = 500;

/**
 * Queries the PostgreSQL store: text as a `tsquery` of the query's words joined by `|` (built by agency, never
 * parsed from user text), the newest `candidateCap` matches ranked by `ts_rank`; with an embedding model, the most
 * similar vectors of the wanted scopes join the candidates, scored as in the SQLite store (rank plus similarity).
 * Vectors are found by pgvector in the server when `pgvector` is set, else by a brute-force index kept in process.
 */
export function createPostgresSearch(
  pool: pg.Pool,
  deps: {
    candidateCap: number;
    embedding: EmbeddingSettings | undefined;
    now: () => number;
    tables: PostgresTables;
    pgvector: boolean;
  },
) {
  const { tables } = deps;
  const vectors =
    deps.embedding === undefined || deps.pgvector ? undefined : createVectorSync(pool, tables, deps.embedding.name);

  const similarRows = async (query: MemoryQuery, keys: string[], settings: EmbeddingSettings) => {
    const limit = vectorCandidateLimit(query.topK, deps.candidateCap);
    await vectors?.refresh();
    const [queryVector] = (await embedTexts(settings, [query.text as string])) as [Float32Array];
    if (vectors !== undefined) return vectors.search(queryVector, keys, limit, settings.minSimilarity);
    const { name: model, minSimilarity } = settings;
    return pgvectorSearch(pool, tables, {
      query: queryVector,
      model,
      scopes: keys.map(columnValue),
      limit,
      minSimilarity,
    });
  };

  const textCandidates = async (words: string[], filters: Filters): Promise<Map<string, Ranked>> => {
    const n = filters.params.length;
    const { rows } = await pool.query<Row & { r: number }>(
      `SELECT ${ROW_COLUMNS}, ts_rank(tsv, $${n + 1}::tsquery) AS r FROM ${tables.entries} ` +
        `WHERE tsv @@ $${n + 1}::tsquery AND ${filters.where} ORDER BY rid DESC LIMIT $${n + 2}`,
      [...filters.params, tsqueryOf(words), deps.candidateCap],
    );
    return new Map(rows.map((row) => [row.rid, rankedOf(row, row.r)]));
  };

  const vectorCandidates = async (query: MemoryQuery, keys: string[], filters: Filters, found: Map<string, Ranked>) => {
    if (deps.embedding === undefined) return;
    const hits = await similarRows(query, keys, deps.embedding);
    if (hits.length === 0) return;
    // To four decimals: pgvector (double) and the in-process index (float32) then score alike, and rank alike.
    const similarity = new Map(hits.map((hit) => [String(hit.rowId), Math.round(hit.similarity * 1e4) / 1e4]));
    const n = filters.params.length;
    const { rows } = await pool.query<Row>(
      `SELECT ${ROW_COLUMNS} FROM ${tables.entries} WHERE rid = ANY($${n + 1}::bigint[]) AND ${filters.where}`,
      [...filters.params, hits.map((hit) => hit.rowId)],
    );
    for (const row of rows) {
      const extra = similarity.get(row.rid) ?? 0;
      const known = found.get(row.rid);
      found.set(row.rid, known === undefined ? rankedOf(row, extra) : { ...known, score: known.score + extra });
    }
  };

  // Newest first, a page at a time, until the picks of the rows read so far can no longer change.
  const recent = async (filters: Filters, query: MemoryQuery): Promise<Ranked[]> => {
    const read: Ranked[] = [];
    const n = filters.params.length;
    for (;;) {
      const { rows } = await pool.query<Row>(
        `SELECT ${ROW_COLUMNS} FROM ${tables.entries} WHERE ${filters.where} ` +
          `ORDER BY created_ms DESC, rid DESC OFFSET $${n + 1} LIMIT $${n + 2}`,
        [...filters.params, read.length, PAGE],
      );
      read.push(...rows.map((row) => rankedOf(row, 0)));
      const last = read.at(-1)?.createdMs;
      // Rows of the last createdAt read may go on in the next page: decide only on the rows before them.
      const settled = rows.length < PAGE ? read : read.filter((item) => item.createdMs !== last);
      const picked = pickWithinBudget([...settled].sort(compareCandidates), query);
      if (picked.length >= query.topK || rows.length < PAGE) return picked;
    }
  };

  return {
    async query(scopes: readonly MemoryScope[], query: MemoryQuery): Promise<StoredMemoryEntry[]> {
      const keys = scopeKeysOf(scopes);
      checkQuery(query);
      if (keys.length === 0 || query.topK === 0) return [];
      const filters = filtersOf(keys, query, deps.now());
      const words = queryWords(query.text);
      if (words.length === 0) return readDocs(pool, tables, await recent(filters, query));
      const found = await textCandidates(words, filters);
      await vectorCandidates(query, keys, filters, found);
      return readDocs(pool, tables, pickWithinBudget([...found.values()].sort(compareCandidates), query));
    },
  };
}

function rankedOf(row: Row, score: number): Ranked {
  return {
    rid: row.rid,
    score,
    createdMs: Number(row.created_ms),
    id: JSON.parse(row.id) as string,
    scope: JSON.parse(row.scope) as string,
    tokens: row.tokens,
  };
}

function filtersOf(keys: string[], query: MemoryQuery, time: number): Filters {
  const params: unknown[] = [keys.map(columnValue), time];
  const parts = ['scope = ANY($1::text[])', '(expires_ms IS NULL OR expires_ms > $2)'];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    parts.push(sql(params.length));
  };
  if (query.kinds !== undefined) add((n) => `kind = ANY($${n}::text[])`, query.kinds.map(columnValue));
  if (query.keys !== undefined) add((n) => `key = ANY($${n}::text[])`, query.keys.map(columnValue));
  if (query.tags !== undefined && query.tags.length > 0) {
    add((n) => `tags @> $${n}::text[]`, query.tags.map(columnValue));
  }
  return { where: parts.join(' AND '), params };
}

async function readDocs(pool: pg.Pool, tables: PostgresTables, picked: Ranked[]): Promise<StoredMemoryEntry[]> {
  if (picked.length === 0) return [];
  const { rows } = await pool.query<{ rid: string; doc: string }>(
    `SELECT rid, doc FROM ${tables.entries} WHERE rid = ANY($1::bigint[])`,
    [picked.map((item) => item.rid)],
  );
  const docs = new Map(rows.map((row) => [row.rid, row.doc]));
  // An entry deleted by another process between the two reads is left out.
  return picked.flatMap((item) => {
    const doc = docs.get(item.rid);
    return doc === undefined ? [] : [JSON.parse(doc) as StoredMemoryEntry];
  });
}

/** The vectors of one model, kept in process and brought up to date by `vec_seq` before each vector search. */
function createVectorSync(pool: pg.Pool, tables: PostgresTables, model: string) {
  const index = createVectorIndex();
  let seen = '0';
  return {
    async refresh() {
      const { rows } = await pool.query<{ rid: string; vec_seq: string; vec: number[]; scope: string }>(
        `SELECT rid, vec_seq, vec, scope FROM ${tables.entries} WHERE vec_seq > $1 AND vec_model = $2 ORDER BY vec_seq`,
        [seen, model],
      );
      for (const row of rows) {
        index.upsert(Number(row.rid), JSON.parse(row.scope) as string, Float32Array.from(row.vec));
        seen = row.vec_seq;
      }
    },
    search: index.search,
  };
}
