import type { JsonValue } from '../../core/messages.ts';

/** A page of keys from {@link KvStore.list}. */
export type KvKeyPage = { keys: string[]; truncated: boolean };

/**
 * The key-value port behind the `kv` tool: JSON values under string keys. Keys are listed in byte order of their
 * UTF-8 encoding (code-point order), so every implementation pages the same way.
 */
export type KvStore = {
  get(key: string): Promise<JsonValue | undefined>;
  set(key: string, value: JsonValue): Promise<void>;
  /** True when the key existed. */
  delete(key: string): Promise<boolean>;
  /** Keys starting with `prefix`, sorted, at most `limit` of them. */
  list(prefix: string, limit: number): Promise<KvKeyPage>;
  /** How many keys the store holds. */
  count(): Promise<number>;
  close(): Promise<void>;
};

/**
 * A {@link KvStore} in memory, for tests and short-lived agents. Values are copied in and out, so callers cannot
 * change what is stored by mutating an object.
 *
 * @example
 * const kv = createKvTool({ store: createMemoryKvStore() });
 */
export function createMemoryKvStore(): KvStore {
  const entries = new Map<string, string>();
  return {
    get: async (key) => {
      const text = entries.get(key);
      return text === undefined ? undefined : (JSON.parse(text) as JsonValue);
    },
    set: async (key, value) => {
      entries.set(key, JSON.stringify(value));
    },
    delete: async (key) => entries.delete(key),
    list: async (prefix, limit) => {
      const keys = [...entries.keys()].filter((key) => key.startsWith(prefix)).sort(compareCodePoints);
      return { keys: keys.slice(0, limit), truncated: keys.length > limit };
    },
    count: async () => entries.size,
    close: async () => undefined,
  };
}

/** Orders strings by code point, which is the byte order of their UTF-8 encoding (SQLite's BINARY collation). */
export function compareCodePoints(a: string, b: string): number {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return Buffer.compare(left, right);
}
