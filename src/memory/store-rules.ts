import { AgencyError } from '../core/errors.ts';
import { estimateTokens } from '../core/tokens.ts';
import { compareText, wordsOf } from './entry-text.ts';
import {
  formatScope,
  isScopeKind,
  type MemoryEntry,
  type MemoryQuery,
  type MemoryScope,
  type StoredMemoryEntry,
} from './memory-store.ts';

// The rules every MemoryStore shares (memory-store.ts states them): checks of scopes, entries and queries, the
// stored form of an entry, filters, the order and the token budget. Each store keeps only its storage and ranking.

/** @throws AgencyError `invalid_argument` for a scope with an unknown kind or no id. */
export function checkScope(scope: MemoryScope): void {
  if (typeof scope !== 'object' || scope === null || !isScopeKind(scope.kind)) {
    throw new AgencyError('invalid_argument', `Memory scope ${JSON.stringify(scope)} needs a known kind and an id`);
  }
  if (typeof scope.id !== 'string' || scope.id === '') {
    throw new AgencyError('invalid_argument', `Memory scope ${JSON.stringify(scope)} needs a known kind and an id`);
  }
}

/** @throws AgencyError `invalid_argument` naming the field of an entry that cannot be stored. */
export function checkEntry(entry: MemoryEntry): void {
  if (typeof entry !== 'object' || entry === null) {
    throw new AgencyError('invalid_argument', 'A memory entry must be an object with "kind" and "text"');
  }
  if (typeof entry.text !== 'string') throw new AgencyError('invalid_argument', 'Memory entry "text" must be a string');
  if (typeof entry.kind !== 'string' || entry.kind === '') {
    throw new AgencyError('invalid_argument', 'Memory entry "kind" must be a non-empty string');
  }
  for (const field of ['id', 'key', 'title'] as const) {
    const value = entry[field];
    if (value !== undefined && (typeof value !== 'string' || (field !== 'title' && value === ''))) {
      throw new AgencyError('invalid_argument', `Memory entry "${field}" must be a non-empty string when given`);
    }
  }
  if (entry.tags !== undefined && !(Array.isArray(entry.tags) && entry.tags.every((tag) => typeof tag === 'string'))) {
    throw new AgencyError('invalid_argument', 'Memory entry "tags" must be an array of strings');
  }
  const { createdAt, ttl } = entry.metadata ?? {};
  if (createdAt !== undefined && (typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt)))) {
    throw new AgencyError('invalid_argument', `Memory entry "metadata.createdAt" must be an ISO 8601 time`);
  }
  if (ttl !== undefined && !(typeof ttl === 'number' && ttl >= 0)) {
    throw new AgencyError('invalid_argument', 'Memory entry "metadata.ttl" must be a non-negative number of ms');
  }
}

/**
 * Checks every entry of a batch before any is written.
 * @throws AgencyError `invalid_argument` naming the position of the first entry that cannot be stored, and why.
 */
export function checkEntries(entries: readonly MemoryEntry[]): void {
  if (!Array.isArray(entries)) throw new AgencyError('invalid_argument', 'Memory entries must be an array of entries');
  entries.forEach((entry, index) => {
    try {
      checkEntry(entry);
    } catch (error) {
      if (!(error instanceof AgencyError)) throw error;
      throw new AgencyError('invalid_argument', `Memory entries[${index}]: ${error.message}`, { details: { index } });
    }
  });
}

/** @throws AgencyError `invalid_argument` for a bad `topK`, `maxTokens` or filter list. */
export function checkQuery(query: MemoryQuery): void {
  if (typeof query !== 'object' || query === null || !Number.isInteger(query.topK) || query.topK < 0) {
    throw new AgencyError('invalid_argument', 'Memory query "topK" must be a non-negative integer');
  }
  if (query.maxTokens !== undefined && !(query.maxTokens >= 0)) {
    throw new AgencyError('invalid_argument', 'Memory query "maxTokens" must be a non-negative number');
  }
  if (query.text !== undefined && typeof query.text !== 'string') {
    throw new AgencyError('invalid_argument', 'Memory query "text" must be a string');
  }
  for (const field of ['tags', 'kinds', 'keys'] as const) {
    const list = query[field];
    if (list !== undefined && !(Array.isArray(list) && list.every((item) => typeof item === 'string'))) {
      throw new AgencyError('invalid_argument', `Memory query "${field}" must be an array of strings`);
    }
  }
}

/** Checks every scope of a query, and returns their `kind:id` forms without repeats. */
export function scopeKeysOf(scopes: readonly MemoryScope[]): string[] {
  if (!Array.isArray(scopes)) throw new AgencyError('invalid_argument', 'Memory query scopes must be an array');
  for (const scope of scopes) checkScope(scope);
  return [...new Set(scopes.map(formatScope))];
}

/** The entry as a store keeps it: a deep copy with its id, scope and `metadata.createdAt`. */
export function storedEntryOf(
  scope: MemoryScope,
  entry: MemoryEntry,
  id: string,
  now: () => number,
): StoredMemoryEntry {
  const createdAt = entry.metadata?.createdAt ?? new Date(now()).toISOString();
  return structuredClone({
    ...entry,
    id,
    scope: { kind: scope.kind, id: scope.id },
    metadata: { ...entry.metadata, createdAt },
  });
}

/** When an entry stops being returned (ms since the epoch), or null when it never does. */
export function expiresAt(entry: StoredMemoryEntry): number | null {
  const { ttl, createdAt } = entry.metadata;
  return ttl === undefined ? null : Date.parse(createdAt) + ttl;
}

/** True when the entry passes a query's kind, key and tag filters and has not expired at `time`. */
export function passesFilters(entry: StoredMemoryEntry, query: MemoryQuery, time: number): boolean {
  const expires = expiresAt(entry);
  if (expires !== null && expires <= time) return false;
  if (query.kinds !== undefined && !query.kinds.includes(entry.kind)) return false;
  if (query.keys !== undefined && (entry.key === undefined || !query.keys.includes(entry.key))) return false;
  if (query.tags !== undefined && !query.tags.every((tag) => entry.tags?.includes(tag) === true)) return false;
  return true;
}

/** An entry found by a query, with its relevance (0 for a query without words). */
export type RankedEntry = { entry: StoredMemoryEntry; score: number };

/** What the store contract orders by, for stores that rank rows before reading whole entries. */
export type Candidate = { score: number; createdMs: number; id: string; scope: string; tokens: number };

/** The store contract's order: score (descending), then `createdAt` (newest first), then id (by code unit). */
export function compareCandidates(a: Candidate, b: Candidate): number {
  return b.score - a.score || b.createdMs - a.createdMs || compareText(a.id, b.id) || compareText(a.scope, b.scope);
}

/** The ordering facts of a stored entry. */
export function candidateOf(entry: StoredMemoryEntry, score: number): Candidate {
  return {
    score,
    createdMs: Date.parse(entry.metadata.createdAt),
    id: entry.id,
    scope: formatScope(entry.scope),
    tokens: estimateTokens(entry.text),
  };
}

/** Takes items in order, at most `topK`, skipping one whose `tokens` would go over `maxTokens`. */
export function pickWithinBudget<T extends { tokens: number }>(items: Iterable<T>, query: MemoryQuery): T[] {
  const out: T[] = [];
  let left = query.maxTokens ?? Number.POSITIVE_INFINITY;
  for (const item of items) {
    if (out.length >= query.topK) break;
    if (item.tokens > left) continue;
    left -= item.tokens;
    out.push(item);
  }
  return out;
}

/** Sorts ranked entries in the contract's order and takes them within the query's limits. */
export function rankAndTake(ranked: RankedEntry[], query: MemoryQuery): StoredMemoryEntry[] {
  const items = ranked.map(({ entry, score }) => ({ ...candidateOf(entry, score), entry }));
  return pickWithinBudget(items.sort(compareCandidates), query).map((item) => item.entry);
}

/**
 * The words a query's text is matched by: lowercase runs of letters and digits of two characters or more, sorted.
 * Every store matches on these, so text that is only punctuation or query syntax (`"`, `*`, `NEAR(`, `-`, `:`) has
 * no words and ranks by recency, and no store ever reads user text as query syntax.
 */
export function queryWords(text: string | undefined): string[] {
  return [...wordsOf(text ?? '')].sort(compareText);
}

/** The text a store indexes for labels (title, key and tags, which weigh more) and for the body. */
export function indexedText(entry: MemoryEntry): { labels: string; body: string } {
  return { labels: [entry.title ?? '', entry.key ?? '', ...(entry.tags ?? [])].join(' '), body: entry.text };
}

/**
 * Text safe for an index that stores UTF-8: NUL becomes a space and a lone surrogate becomes U+FFFD. Only what is
 * searched is cleaned so; the entry itself is kept as JSON, which escapes both, so it comes back exactly as put.
 */
export function indexSafe(text: string): string {
  return text.replaceAll('\u0000', ' ').toWellFormed();
}

/**
 * A value as stored in a column that is compared for equality (scope, id, key, kind, tag): its JSON string. It keeps
 * NUL and lone surrogates apart (a UTF-8 column cannot hold them), and a store never interprets it.
 */
export function columnValue(text: string): string {
  return JSON.stringify(text);
}

/**
 * Keyword relevance, as the in-memory and Zep stores rank: each distinct query word found in the entry's title, key
 * or tags scores 2, one found only in its text scores 1; 0 for a query without words.
 */
export function keywordScore(entry: MemoryEntry, words: ReadonlySet<string>): number {
  if (words.size === 0) return 0;
  const { labels, body } = indexedText(entry);
  const labelWords = wordsOf(labels);
  const bodyWords = wordsOf(body);
  let score = 0;
  for (const word of words) score += labelWords.has(word) ? 2 : bodyWords.has(word) ? 1 : 0;
  return score;
}
