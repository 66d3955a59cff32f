import { AgencyError } from '../core/errors.ts';
import type { JsonValue } from '../core/messages.ts';

/** The kinds of memory scope (channels), in the order a view is composed. */
export const MEMORY_SCOPE_KINDS = ['agent', 'user', 'org', 'team', 'project', 'task'] as const;

/** One of {@link MEMORY_SCOPE_KINDS}. */
export type MemoryScopeKind = (typeof MEMORY_SCOPE_KINDS)[number];

/** Whose memory an entry is: `agent:<id>`, `user:<id>`, `org:<id>`, `team:<id>`, `project:<id>` or `task:<id>`. */
export type MemoryScope = { kind: MemoryScopeKind; id: string };

/** The built-in entry kinds. Any other string is allowed too; stores treat kinds as opaque labels. */
export type MemoryEntryKind = 'preference' | 'constraint' | 'fact' | 'episode' | 'procedure' | (string & {});

/** Where an entry came from. */
export type MemoryProvenance = {
  /** What wrote it, e.g. `task`, `user`, `import`. */
  source: string;
  /** The task that produced it. */
  taskId?: string;
  /** Citations: paths (e.g. `progress/sources.jsonl`) or URLs, never raw content. */
  sources?: string[];
};

/** Facts about an entry. Keys other than the named ones are carried through unchanged. */
export type MemoryMetadata = {
  provenance?: MemoryProvenance;
  /** How sure the writer was, 0..1. */
  confidence?: number;
  /** Time to live in milliseconds from `createdAt`; an expired entry is never returned. */
  ttl?: number;
  /** ISO 8601 time of the put. Set by the store when missing. */
  createdAt?: string;
  [key: string]: JsonValue | undefined;
};

/** An entry to store. */
export type MemoryEntry = {
  /** Set to replace the entry with this id in the same scope. */
  id?: string;
  kind: MemoryEntryKind;
  /** A slot name, unique within a scope: a put with a key that exists replaces that entry. Also the precedence key. */
  key?: string;
  title?: string;
  text: string;
  tags?: string[];
  metadata?: MemoryMetadata;
};

/** An entry as stored: with its id, its scope and `metadata.createdAt`. */
export type StoredMemoryEntry = Omit<MemoryEntry, 'id' | 'metadata'> & {
  id: string;
  scope: MemoryScope;
  metadata: MemoryMetadata & { createdAt: string };
};

/** What to retrieve. All filters combine with AND. */
export type MemoryQuery = {
  /** A label for the query (e.g. `user_prefs`); stores may log or route on it but never filter by it. */
  name?: string;
  /** Free text to rank by relevance. Without it, entries rank by recency. */
  text?: string | undefined;
  /** Only entries that carry every one of these tags. */
  tags?: string[];
  /** Only entries of one of these kinds. */
  kinds?: string[] | undefined;
  /** Only entries with one of these keys. */
  keys?: string[];
  /** At most this many entries. */
  topK: number;
  /** At most this many tokens of entry text, as counted by `estimateTokens`. */
  maxTokens?: number;
};

/**
 * Durable memory, shared by every channel. What a store must guarantee (the in-memory store, and the SQLite,
 * Postgres, Redis and Zep stores, are held to the same contract):
 *
 * - `put` returns the entry as stored: an id (the given one, or a new unique one), the scope, and
 *   `metadata.createdAt`. `(scope, id)` and `(scope, key)` are unique: a put with an existing id or key replaces
 *   that entry and keeps its id. Text, tags and metadata come back exactly as put (JSON round trip).
 * - `query` returns only entries from the given scopes that pass every filter and have not expired (`ttl`). When
 *   `text` is given, only entries that match it are returned. The order is deterministic: relevance score
 *   (descending), then `createdAt` (newest first), then id (ascending), so the same contents and query always give
 *   the same list. At most `topK` entries; with `maxTokens`, entries are taken in that order and an entry that
 *   would go over the budget is skipped.
 * - `delete` removes one entry and says whether it was there.
 * - Every method is async and safe to call concurrently; a put is visible to every later query.
 * - `putMany`, where a store has it, is the same as a `put` of each entry in order (a later entry of the batch with
 *   an earlier one's id or key replaces it), written in one transaction: every entry is stored or, when one is
 *   invalid or the write fails, none. Call it through `putMany(store, scope, entries)` (put-many.ts), which falls
 *   back to `put` one by one for a store without it.
 */
export type MemoryStore = {
  put(scope: MemoryScope, entry: MemoryEntry): Promise<StoredMemoryEntry>;
  /** Optional: many entries of one scope in one transaction (bulk loads). See `putMany` in put-many.ts. */
  putMany?(scope: MemoryScope, entries: readonly MemoryEntry[]): Promise<StoredMemoryEntry[]>;
  query(scopes: readonly MemoryScope[], query: MemoryQuery): Promise<StoredMemoryEntry[]>;
  delete(scope: MemoryScope, id: string): Promise<boolean>;
};

/** A scope as a string: `agent:a1`. */
export function formatScope(scope: MemoryScope): string {
  return `${scope.kind}:${scope.id}`;
}

/**
 * Parses `agent:a1` into a scope. The id is everything after the first colon.
 *
 * @throws AgencyError `invalid_argument` for an unknown kind or an empty id.
 */
export function parseScope(text: string): MemoryScope {
  const colon = text.indexOf(':');
  const kind = colon < 0 ? text : text.slice(0, colon);
  const id = colon < 0 ? '' : text.slice(colon + 1);
  if (!isScopeKind(kind) || id === '') {
    throw new AgencyError(
      'invalid_argument',
      `Memory scope "${text}" must be <kind>:<id> with kind one of ${MEMORY_SCOPE_KINDS.join('|')}`,
    );
  }
  return { kind, id };
}

/** True when `value` is one of {@link MEMORY_SCOPE_KINDS}. */
export function isScopeKind(value: unknown): value is MemoryScopeKind {
  return typeof value === 'string' && (MEMORY_SCOPE_KINDS as readonly string[]).includes(value);
}
