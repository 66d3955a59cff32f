import { embedTexts, type EmbeddingSettings, vectorCandidateLimit, vectorFromBytes } from '../../embedding.ts';
import type { MemoryQuery, MemoryScope, StoredMemoryEntry } from '../../memory-store.ts';
import { type Candidate, checkQuery, compareCandidates, queryWords, scopeKeysOf } from '../../store-rules.ts';
import { createVectorIndex } from '../../vector-index.ts';
import type { RedisKeys } from './redis-keys.ts';
import type { EntryMeta } from './redis-write.ts';

/** The few commands a query sends. */
export type RedisReader = {
  zUnionWithScores(keys: string[]): Promise<{ value: string; score: number }[]>;
  zRangeWithScores(key: string): Promise<{ value: string; score: number }[]>;
  zmScore(key: string, members: string[]): Promise<(number | null)[]>;
  hmGet(key: string, fields: string[]): Promise<(string | null)[]>;
  zRangeByScore(key: string, min: string): Promise<string[]>;
};

type Found = Candidate & { base: string; member: string; row?: number };

const PAGE = 200;

/**
 * Queries the Redis store. With words, each scope's word sets are summed by ZUNION (a word of the title, key or tags
 * counts 2, of the text 1: term overlap, no BM25); without words, each scope's time set gives the newest first.
 * Candidates are sorted in the contract's order, then their filter facts are read a page at a time until `topK`
 * entries pass, and only those entries are read whole.
 */
export function createRedisSearch(
  reader: RedisReader,
  deps: { candidateCap: number; embedding: EmbeddingSettings | undefined; now: () => number; keys: RedisKeys },
) {
  const { keys } = deps;
  const vectors = deps.embedding === undefined ? undefined : createVectorSync(reader, keys, deps.embedding.name);

  const candidates = async (scopeText: string, words: string[]): Promise<Found[]> => {
    const base = keys.scope(scopeText);
    if (words.length === 0) {
      const rows = await reader.zRangeWithScores(`${base}:time`);
      return rows.map((row) => foundOf(base, scopeText, row.value, 0, row.score));
    }
    const hits = await reader.zUnionWithScores(words.map((word) => keys.word(base, word)));
    if (hits.length === 0) return [];
    const times = await reader.zmScore(
      `${base}:time`,
      hits.map((hit) => hit.value),
    );
    return hits.flatMap((hit, i) => {
      const time = times[i];
      return time === null || time === undefined ? [] : [foundOf(base, scopeText, hit.value, hit.score, time)];
    });
  };

  const vectorCandidates = async (query: MemoryQuery, scopeTexts: string[], found: Found[]): Promise<Found[]> => {
    if (vectors === undefined || deps.embedding === undefined) return found;
    await vectors.refresh();
    const [queryVector] = await embedTexts(deps.embedding, [query.text as string]);
    const limit = vectorCandidateLimit(query.topK, deps.candidateCap);
    const hits = vectors.search(queryVector as Float32Array, scopeTexts, limit, deps.embedding.minSimilarity);
    const byEntry = new Map(found.map((item) => [`${item.scope}\n${item.member}`, item]));
    const added: Found[] = [];
    for (const hit of hits) {
      const owner = vectors.ownerOf(hit.rowId);
      if (owner === undefined) continue;
      const known = byEntry.get(`${owner.scope}\n${owner.member}`);
      if (known !== undefined) known.score += hit.similarity;
      else
        added.push({
          ...foundOf(keys.scope(owner.scope), owner.scope, owner.member, hit.similarity, 0),
          row: hit.rowId,
        });
    }
    for (const item of added) {
      const [time] = await reader.zmScore(`${item.base}:time`, [item.member]);
      if (time !== null && time !== undefined) found.push({ ...item, createdMs: time });
    }
    return found;
  };

  return {
    async query(scopes: readonly MemoryScope[], query: MemoryQuery): Promise<StoredMemoryEntry[]> {
      const scopeTexts = scopeKeysOf(scopes);
      checkQuery(query);
      if (scopeTexts.length === 0 || query.topK === 0) return [];
      const words = queryWords(query.text);
      let found = (await Promise.all(scopeTexts.map((scope) => candidates(scope, words)))).flat();
      if (words.length > 0) found = await vectorCandidates(query, scopeTexts, found);
      const picked = await pick(reader, found.sort(compareCandidates), query, deps.now());
      return readDocs(reader, picked);
    },
  };
}

function foundOf(base: string, scope: string, member: string, score: number, createdMs: number): Found {
  return { base, member, scope, score, createdMs, id: JSON.parse(member) as string, tokens: 0 };
}

// Walks the candidates in order, reading their filter facts a page at a time, and takes them within topK and
// maxTokens as pickWithinBudget does.
async function pick(reader: RedisReader, ordered: Found[], query: MemoryQuery, time: number): Promise<Found[]> {
  const out: Found[] = [];
  let left = query.maxTokens ?? Number.POSITIVE_INFINITY;
  for (let start = 0; start < ordered.length && out.length < query.topK; start += PAGE) {
    const page = ordered.slice(start, start + PAGE);
    const metas = await readFields(reader, page, 'meta');
    for (const [i, item] of page.entries()) {
      const text = metas[i];
      if (text === null || text === undefined || out.length >= query.topK) continue;
      const meta = JSON.parse(text) as EntryMeta;
      if (!passes(meta, query, time) || (item.row !== undefined && item.row !== meta.row)) continue;
      if (meta.tokens > left) continue;
      left -= meta.tokens;
      out.push(item);
    }
  }
  return out;
}

function passes(meta: EntryMeta, query: MemoryQuery, time: number): boolean {
  if (meta.expires !== null && meta.expires <= time) return false;
  if (query.kinds !== undefined && !query.kinds.includes(meta.kind)) return false;
  if (query.keys !== undefined && (meta.key === undefined || !query.keys.includes(meta.key))) return false;
  if (query.tags !== undefined && !query.tags.every((tag) => meta.tags.includes(tag))) return false;
  return true;
}

// One HMGET per scope of the items, answers in the items' order.
async function readFields(reader: RedisReader, items: Found[], hash: 'meta' | 'docs'): Promise<(string | null)[]> {
  const byBase = new Map<string, number[]>();
  items.forEach((item, i) => byBase.set(item.base, [...(byBase.get(item.base) ?? []), i]));
  const out: (string | null)[] = new Array<string | null>(items.length).fill(null);
  await Promise.all(
    [...byBase].map(async ([base, indexes]) => {
      const values = await reader.hmGet(
        `${base}:${hash}`,
        indexes.map((i) => (items[i] as Found).member),
      );
      indexes.forEach((at, i) => (out[at] = values[i] ?? null));
    }),
  );
  return out;
}

async function readDocs(reader: RedisReader, picked: Found[]): Promise<StoredMemoryEntry[]> {
  const docs = await readFields(reader, picked, 'docs');
  // An entry deleted by another client between the two reads is left out.
  return picked.flatMap((item, i) => {
    const doc = docs[i];
    if (doc === null || doc === undefined) return [];
    return [{ ...(JSON.parse(doc) as Omit<StoredMemoryEntry, 'id'>), id: item.id }];
  });
}

/** The vectors of one model, kept in process and brought up to date by row number before each vector search. */
function createVectorSync(reader: RedisReader, keys: RedisKeys, model: string) {
  const index = createVectorIndex();
  const owners = new Map<number, { scope: string; member: string }>();
  const rowOf = new Map<string, number>();
  let seen = 0;
  return {
    async refresh() {
      const rows = await reader.zRangeByScore(keys.vectorRows, `(${seen}`);
      if (rows.length === 0) return;
      const [data, ids] = await Promise.all([reader.hmGet(keys.vectorData, rows), reader.hmGet(keys.vectorIds, rows)]);
      rows.forEach((row, i) => {
        const payload = data[i];
        const member = ids[i];
        seen = Math.max(seen, Number(row));
        if (payload === null || payload === undefined || member === null || member === undefined) return;
        const { m, s, v } = JSON.parse(payload) as { m: string; s: string; v: string };
        if (m !== model) return;
        // A newer row of the same entry (a replacement) retires its older vector.
        const previous = rowOf.get(`${s}\n${member}`);
        if (previous !== undefined) {
          index.remove(previous);
          owners.delete(previous);
        }
        index.upsert(Number(row), s, vectorFromBytes(Buffer.from(v, 'base64')));
        owners.set(Number(row), { scope: s, member });
        rowOf.set(`${s}\n${member}`, Number(row));
      });
    },
    search: index.search,
    ownerOf: (row: number) => owners.get(row),
  };
}
