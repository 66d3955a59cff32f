import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import { embedTexts, type EmbeddingSettings, vectorCandidateLimit, vectorFromBytes } from '../../embedding.ts';
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

/** The query side of the SQLite store. */
export type SqliteSearch = {
  query(scopes: readonly MemoryScope[], query: MemoryQuery): Promise<StoredMemoryEntry[]>;
};

type Row = { rid: number; id: string; scope: string; created_ms: number; tokens: number };
type Ranked = Candidate & { rid: number };

const ROW_COLUMNS = 'e.rid, e.id, e.scope, e.created_ms, e.tokens';

/**
 * Queries the SQLite store. Text becomes an FTS5 expression of quoted words joined by OR (user text never becomes
 * FTS syntax); the newest `candidateCap` matches are ranked by BM25 (title, key and tags weigh twice the text). With
 * an embedding model, the query is embedded too and the most similar vectors of the wanted scopes join the
 * candidates; an entry's score is its BM25 score plus its cosine similarity.
 */
export function createSqliteSearch(
  db: DatabaseSync,
  deps: { candidateCap: number; embedding: EmbeddingSettings | undefined; now: () => number },
): SqliteSearch {
  const vectors = deps.embedding === undefined ? undefined : createVectorSync(db, deps.embedding.name);

  const textCandidates = (words: string[], filters: Filters): Map<number, Ranked> => {
    const match = words.map((word) => `"${word.replaceAll('"', '""')}"`).join(' OR ');
    const rows = db
      .prepare(
        `SELECT ${ROW_COLUMNS}, bm25(memory_fts, 2.0, 1.0) AS b FROM memory_fts ` +
          `JOIN memory_entries e ON e.rid = memory_fts.rowid WHERE memory_fts MATCH ? AND ${filters.where} ` +
          'ORDER BY memory_fts.rowid DESC LIMIT ?',
      )
      .all(match, ...filters.params, deps.candidateCap) as Array<Row & { b: number }>;
    return new Map(rows.map((row) => [row.rid, rankedOf(row, -row.b)]));
  };

  const vectorCandidates = async (query: MemoryQuery, keys: string[], filters: Filters, found: Map<number, Ranked>) => {
    if (vectors === undefined || deps.embedding === undefined) return;
    const limit = vectorCandidateLimit(query.topK, deps.candidateCap);
    const [queryVector] = await embedTexts(deps.embedding, [query.text as string]);
    const hits = vectors.search(queryVector as Float32Array, keys, limit, deps.embedding.minSimilarity);
    if (hits.length === 0) return;
    const similarity = new Map(hits.map((hit) => [hit.rowId, hit.similarity]));
    const rows = db
      .prepare(
        `SELECT ${ROW_COLUMNS} FROM memory_entries e WHERE e.rid IN (${marks(hits.length)}) AND ${filters.where}`,
      )
      .all(...hits.map((hit) => hit.rowId), ...filters.params) as Row[];
    for (const row of rows) {
      const extra = similarity.get(row.rid) ?? 0;
      const known = found.get(row.rid);
      found.set(row.rid, known === undefined ? rankedOf(row, extra) : { ...known, score: known.score + extra });
    }
  };

  const recent = function* (filters: Filters): Generator<Ranked> {
    const rows = db
      .prepare(`SELECT ${ROW_COLUMNS} FROM memory_entries e WHERE ${filters.where} ORDER BY e.created_ms DESC`)
      .iterate(...filters.params) as Iterable<Row>;
    // Rows come newest first; rows of one createdAt are put in the contract's order (id, then scope) before use.
    let group: Ranked[] = [];
    for (const row of rows) {
      if (group.length > 0 && (group[0] as Ranked).createdMs !== row.created_ms) {
        yield* group.sort(compareCandidates);
        group = [];
      }
      group.push(rankedOf(row, 0));
    }
    yield* group.sort(compareCandidates);
  };

  return {
    async query(scopes, query) {
      const keys = scopeKeysOf(scopes);
      checkQuery(query);
      if (keys.length === 0 || query.topK === 0) return [];
      vectors?.refresh();
      const filters = filtersOf(keys, query, deps.now());
      const words = queryWords(query.text);
      if (words.length === 0) return readDocs(db, pickWithinBudget(recent(filters), query));
      const found = textCandidates(words, filters);
      await vectorCandidates(query, keys, filters, found);
      return readDocs(db, pickWithinBudget([...found.values()].sort(compareCandidates), query));
    },
  };
}

function rankedOf(row: Row, score: number): Ranked {
  return {
    rid: row.rid,
    score,
    createdMs: row.created_ms,
    id: JSON.parse(row.id) as string,
    scope: JSON.parse(row.scope) as string,
    tokens: row.tokens,
  };
}

type Filters = { where: string; params: SQLInputValue[] };

function filtersOf(keys: string[], query: MemoryQuery, time: number): Filters {
  const parts = [`e.scope IN (${marks(keys.length)})`, '(e.expires_ms IS NULL OR e.expires_ms > ?)'];
  const params: SQLInputValue[] = [...keys.map(columnValue), time];
  if (query.kinds !== undefined) {
    parts.push(`e.kind IN (${marks(query.kinds.length)})`);
    params.push(...query.kinds.map(columnValue));
  }
  if (query.keys !== undefined) {
    parts.push(`e.key IN (${marks(query.keys.length)})`);
    params.push(...query.keys.map(columnValue));
  }
  for (const tag of new Set(query.tags ?? [])) {
    parts.push('e.rid IN (SELECT rid FROM memory_tags WHERE tag = ?)');
    params.push(columnValue(tag));
  }
  return { where: parts.join(' AND '), params };
}

function marks(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

function readDocs(db: DatabaseSync, picked: Ranked[]): StoredMemoryEntry[] {
  if (picked.length === 0) return [];
  const rows = db
    .prepare(`SELECT rid, doc FROM memory_entries WHERE rid IN (${marks(picked.length)})`)
    .all(...picked.map((item) => item.rid)) as Array<{ rid: number; doc: string }>;
  const docs = new Map(rows.map((row) => [row.rid, row.doc]));
  // An entry deleted by another process between the two reads is left out.
  return picked.flatMap((item) => {
    const doc = docs.get(item.rid);
    return doc === undefined ? [] : [JSON.parse(doc) as StoredMemoryEntry];
  });
}

/**
 * The vectors of one model, kept in process and brought up to date before each query: vectors written since the
 * last look (by any process) are loaded by their `seq`. Vectors of deleted entries may stay in the index; their rows
 * are gone, so they never come back from a query.
 */
function createVectorSync(db: DatabaseSync, model: string) {
  const index = createVectorIndex();
  let seen = 0;
  const load = db.prepare(
    'SELECT v.rid, v.seq, v.vec, e.scope FROM memory_vectors v JOIN memory_entries e ON e.rid = v.rid ' +
      'WHERE v.seq > ? AND v.model = ? ORDER BY v.seq',
  );
  return {
    refresh() {
      for (const row of load.iterate(seen, model) as Iterable<{
        rid: number;
        seq: number;
        vec: Uint8Array;
        scope: string;
      }>) {
        index.upsert(row.rid, JSON.parse(row.scope) as string, vectorFromBytes(row.vec));
        seen = row.seq;
      }
    },
    search: index.search,
  };
}
