import { canonicalJson } from '../core/canonical-json.ts';
import { AgencyError } from '../core/errors.ts';
import type { JsonValue } from '../core/messages.ts';
import type { MemoryMetadata, MemoryScope, MemoryStore, StoredMemoryEntry } from './memory-store.ts';

/** What {@link MemoryClient.append} takes: text, or an entry without id or key. */
export type MemoryClientEntry =
  string | { text: string; kind?: string; title?: string; tags?: string[]; metadata?: MemoryMetadata };

/** Seed 002's short-term memory: named streams of entries, appended in order. */
export type MemoryClient = {
  /** Appends to a stream. Entries default to kind `note`. */
  append(streamKey: string, entry: MemoryClientEntry): Promise<StoredMemoryEntry>;
  /** The last `limit` entries of a stream, oldest first. @default limit 100 */
  read(streamKey: string, options?: { limit?: number }): Promise<StoredMemoryEntry[]>;
  /** Stream entries matching `text`, best first, in one stream or in all. @default topK 10 */
  search(text: string, options?: { topK?: number; streamKey?: string }): Promise<StoredMemoryEntry[]>;
  /** Deletes every entry of a stream and returns how many there were. */
  clear(streamKey: string): Promise<number>;
};

/** A record of a {@link DatabaseClient}. */
export type DatabaseRecord = { collection: string; key: string; value: JsonValue };

/** Seed 002's long-term store: JSON values by collection and key. */
export type DatabaseClient = {
  /** Writes (or replaces) one record. */
  write(collection: string, key: string, value: JsonValue): Promise<void>;
  /** One record's value, or null. */
  read(collection: string, key: string): Promise<JsonValue | null>;
  /** Records whose value is an object with every field of `where` equal (as JSON) to the given one, newest first. */
  query(collection: string, where: Record<string, JsonValue>, options?: { limit?: number }): Promise<DatabaseRecord[]>;
  /** Records whose value matches `text`, best first, in one collection or in all. @default topK 10 */
  search(text: string, options?: { topK?: number; collection?: string }): Promise<DatabaseRecord[]>;
};

// How many entries one scan reads (clear, query); stores rank newest first, so a query sees the newest records.
const SCAN = 1000;

/**
 * A {@link MemoryClient} over a store, in one scope. Stream entries carry the tags `stream` and `stream:<key>`;
 * the client stamps strictly increasing `createdAt` times so that `read` keeps append order.
 *
 * @example
 * const scratch = createMemoryClient({ store, scope: { kind: 'task', id: taskId } });
 * await scratch.append('notes', 'The API is paginated.');
 */
export function createMemoryClient({ store, scope, now = Date.now }: ClientOptions): MemoryClient {
  let last = 0;
  const stamp = () => (last = Math.max(now(), last + 1));
  const streamTag = (key: string) => `stream:${nonEmpty(key, 'streamKey')}`;

  return {
    async append(streamKey, entry) {
      const { text, kind = 'note', title, tags = [], metadata } = typeof entry === 'string' ? { text: entry } : entry;
      const createdAt = new Date(stamp()).toISOString();
      return store.put(scope, {
        kind,
        text,
        ...(title === undefined ? {} : { title }),
        tags: [...new Set(['stream', streamTag(streamKey), ...tags])],
        metadata: { ...metadata, createdAt },
      });
    },
    async read(streamKey, { limit = 100 } = {}) {
      return (await store.query([scope], { name: 'stream_read', tags: [streamTag(streamKey)], topK: limit })).reverse();
    },
    async search(text, { topK = 10, streamKey } = {}) {
      const tags = streamKey === undefined ? ['stream'] : [streamTag(streamKey)];
      return store.query([scope], { name: 'stream_search', text, tags, topK });
    },
    async clear(streamKey) {
      let deleted = 0;
      for (;;) {
        const batch = await store.query([scope], { name: 'stream_clear', tags: [streamTag(streamKey)], topK: SCAN });
        for (const entry of batch) if (await store.delete(scope, entry.id)) deleted++;
        if (batch.length < SCAN) return deleted;
      }
    },
  };
}

/** Options of the clients. */
export type ClientOptions = {
  store: MemoryStore;
  /** The scope every entry is written to and read from. */
  scope: MemoryScope;
  /** Milliseconds since the epoch. @default Date.now */
  now?: () => number;
};

/**
 * A {@link DatabaseClient} over a store, in one scope. A record is an entry of kind `record` with key
 * `<collection>:<key>`, the tags `record` and `collection:<name>`, its value in `metadata.value` and its canonical
 * JSON as text (so `search` matches words in the value). `query` filters the newest 1000 records of a collection.
 *
 * @example
 * const db = createDatabaseClient({ store, scope: { kind: 'user', id: 'u1' } });
 * await db.write('profiles', 'u1', { name: 'Ada', plan: 'pro' });
 */
export function createDatabaseClient({ store, scope }: Omit<ClientOptions, 'now'>): DatabaseClient {
  const tagOf = (collection: string) => `collection:${checkCollection(collection)}`;
  const recordKey = (collection: string, key: string) => `${checkCollection(collection)}:${nonEmpty(key, 'key')}`;

  return {
    async write(collection, key, value) {
      await store.put(scope, {
        kind: 'record',
        key: recordKey(collection, key),
        text: canonicalJson(value),
        tags: ['record', tagOf(collection)],
        metadata: { collection, recordKey: key, value },
      });
    },
    async read(collection, key) {
      const [entry] = await store.query([scope], { name: 'db_read', keys: [recordKey(collection, key)], topK: 1 });
      return entry === undefined ? null : toRecord(entry).value;
    },
    async query(collection, where, { limit = 100 } = {}) {
      const entries = await store.query([scope], { name: 'db_query', tags: [tagOf(collection)], topK: SCAN });
      const wanted = Object.entries(where).map(([field, value]) => [field, canonicalJson(value)] as const);
      return entries
        .map(toRecord)
        .filter(({ value }) => isObject(value) && wanted.every(([f, v]) => f in value && canonicalJson(value[f]) === v))
        .slice(0, limit);
    },
    async search(text, { topK = 10, collection } = {}) {
      const tags = collection === undefined ? ['record'] : [tagOf(collection)];
      return (await store.query([scope], { name: 'db_search', text, tags, topK })).map(toRecord);
    },
  };
}

function toRecord(entry: StoredMemoryEntry): DatabaseRecord {
  const { collection, recordKey, value } = entry.metadata;
  return { collection: String(collection), key: String(recordKey), value: value ?? null };
}

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkCollection(collection: string): string {
  if (nonEmpty(collection, 'collection').includes(':')) {
    throw new AgencyError('invalid_argument', `Collection "${collection}" must not contain ":"`);
  }
  return collection;
}

function nonEmpty(value: string, field: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new AgencyError('invalid_argument', `"${field}" must be a non-empty string`);
  }
  return value;
}
