import { formatScope, type MemoryStore, type StoredMemoryEntry } from './memory-store.ts';
import {
  checkEntry,
  checkQuery,
  checkScope,
  keywordScore,
  passesFilters,
  queryWords,
  type RankedEntry,
  rankAndTake,
  scopeKeysOf,
  storedEntryOf,
} from './store-rules.ts';

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
      const stored = storedEntryOf(scope, entry, id, now);
      entries.set(id, stored);
      return structuredClone(stored);
    },

    async query(wanted, query) {
      const keys = scopeKeysOf(wanted);
      checkQuery(query);
      const words = new Set(queryWords(query.text));
      const time = now();
      const ranked: RankedEntry[] = [];
      for (const key of keys) {
        for (const entry of scopes.get(key)?.values() ?? []) {
          if (!passesFilters(entry, query, time)) continue;
          const score = keywordScore(entry, words);
          if (words.size > 0 && score === 0) continue;
          ranked.push({ entry, score });
        }
      }
      return rankAndTake(ranked, query).map((entry) => structuredClone(entry));
    },

    async delete(scope, id) {
      checkScope(scope);
      return scopes.get(formatScope(scope))?.delete(id) ?? false;
    },
  };
}
