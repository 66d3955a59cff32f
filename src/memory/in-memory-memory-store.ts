import { AgencyError } from '../core/errors.ts';
import { estimateTokens } from '../core/tokens.ts';
import {
  formatScope,
  isScopeKind,
  type MemoryEntry,
  type MemoryQuery,
  type MemoryScope,
  type MemoryStore,
  type StoredMemoryEntry,
} from './memory-store.ts';
import { compareText, wordsOf } from './entry-text.ts';

/** Dependencies for {@link createInMemoryMemoryStore}. */
export type InMemoryMemoryStoreDeps = {
  /** Milliseconds since the epoch, for `createdAt` and `ttl`. @default Date.now */
  now?: () => number;
  /** New entry ids. @default a counter: `mem_000001`, `mem_000002`, … */
  generateId?: () => string;
};

/**
 * A {@link MemoryStore} held in a Map, for tests and short-lived agents. It honours the whole store contract.
 *
 * Relevance is simple keyword scoring, not BM25: the query and each entry are split into lowercase words (runs of
 * letters and digits, two characters or more). Each distinct query word found in the entry's title, key or tags
 * scores 2; one found only in its text scores 1. Entries that score 0 are not returned when the query has words.
 *
 * @example
 * const store = createInMemoryMemoryStore();
 * await store.put({ kind: 'user', id: 'u1' }, { kind: 'preference', key: 'tone', text: 'Short answers.' });
 */
export function createInMemoryMemoryStore({ now = Date.now, generateId }: InMemoryMemoryStoreDeps = {}): MemoryStore {
  const scopes = new Map<string, Map<string, StoredMemoryEntry>>();
  let counter = 0;
  const nextId = generateId ?? (() => `mem_${String(++counter).padStart(6, '0')}`);

  return {
    async put(scope, entry) {
      checkScope(scope);
      checkEntry(entry);
      const entries = scopes.get(formatScope(scope)) ?? new Map<string, StoredMemoryEntry>();
      scopes.set(formatScope(scope), entries);
      const sameKey = entry.key === undefined ? undefined : [...entries.values()].find((e) => e.key === entry.key);
      const id = entry.id ?? sameKey?.id ?? nextId();
      // A key names one slot: an entry that held this key under another id gives it up.
      if (sameKey !== undefined && sameKey.id !== id) entries.delete(sameKey.id);
      const createdAt = entry.metadata?.createdAt ?? new Date(now()).toISOString();
      const stored: StoredMemoryEntry = structuredClone({
        ...entry,
        id,
        scope: { kind: scope.kind, id: scope.id },
        metadata: { ...entry.metadata, createdAt },
      });
      entries.set(id, stored);
      return structuredClone(stored);
    },

    async query(wanted, query) {
      for (const scope of wanted) checkScope(scope);
      checkQuery(query);
      const words = wordsOf(query.text ?? '');
      const time = now();
      const ranked: Array<{ entry: StoredMemoryEntry; score: number; created: number }> = [];
      for (const key of new Set(wanted.map(formatScope))) {
        for (const entry of scopes.get(key)?.values() ?? []) {
          if (!passesFilters(entry, query, time)) continue;
          const score = scoreEntry(entry, words);
          if (words.size > 0 && score === 0) continue;
          ranked.push({ entry, score, created: Date.parse(entry.metadata.createdAt) });
        }
      }
      ranked.sort((a, b) => b.score - a.score || b.created - a.created || compareText(a.entry.id, b.entry.id));
      return takeWithinBudget(
        ranked.map((r) => r.entry),
        query,
      ).map((entry) => structuredClone(entry));
    },

    async delete(scope, id) {
      checkScope(scope);
      return scopes.get(formatScope(scope))?.delete(id) ?? false;
    },
  };
}

function scoreEntry(entry: StoredMemoryEntry, words: Set<string>): number {
  if (words.size === 0) return 0;
  const labels = wordsOf([entry.title ?? '', entry.key ?? '', ...(entry.tags ?? [])].join(' '));
  const body = wordsOf(entry.text);
  let score = 0;
  for (const word of words) score += labels.has(word) ? 2 : body.has(word) ? 1 : 0;
  return score;
}

function passesFilters(entry: StoredMemoryEntry, query: MemoryQuery, time: number): boolean {
  const { ttl, createdAt } = entry.metadata;
  if (ttl !== undefined && Date.parse(createdAt) + ttl <= time) return false;
  if (query.kinds !== undefined && !query.kinds.includes(entry.kind)) return false;
  if (query.keys !== undefined && (entry.key === undefined || !query.keys.includes(entry.key))) return false;
  if (query.tags !== undefined && !query.tags.every((tag) => entry.tags?.includes(tag) === true)) return false;
  return true;
}

function takeWithinBudget(entries: StoredMemoryEntry[], { topK, maxTokens }: MemoryQuery): StoredMemoryEntry[] {
  const out: StoredMemoryEntry[] = [];
  let left = maxTokens ?? Number.POSITIVE_INFINITY;
  for (const entry of entries) {
    if (out.length >= topK) break;
    const cost = estimateTokens(entry.text);
    if (cost > left) continue;
    left -= cost;
    out.push(entry);
  }
  return out;
}

function checkScope(scope: MemoryScope): void {
  if (!isScopeKind(scope.kind) || typeof scope.id !== 'string' || scope.id === '') {
    throw new AgencyError('invalid_argument', `Memory scope ${JSON.stringify(scope)} needs a known kind and an id`);
  }
}

function checkEntry(entry: MemoryEntry): void {
  if (typeof entry.text !== 'string') throw new AgencyError('invalid_argument', 'Memory entry "text" must be a string');
  if (typeof entry.kind !== 'string' || entry.kind === '') {
    throw new AgencyError('invalid_argument', 'Memory entry "kind" must be a non-empty string');
  }
  const createdAt = entry.metadata?.createdAt;
  if (createdAt !== undefined && Number.isNaN(Date.parse(createdAt))) {
    throw new AgencyError('invalid_argument', `Memory entry "metadata.createdAt" must be an ISO 8601 time`);
  }
}

function checkQuery(query: MemoryQuery): void {
  if (!Number.isInteger(query.topK) || query.topK < 0) {
    throw new AgencyError('invalid_argument', 'Memory query "topK" must be a non-negative integer');
  }
  if (query.maxTokens !== undefined && !(query.maxTokens >= 0)) {
    throw new AgencyError('invalid_argument', 'Memory query "maxTokens" must be a non-negative number');
  }
}
