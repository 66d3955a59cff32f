import { z } from 'zod';
import { AgencyError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/messages.ts';
import { defineTool, type Tool } from '../define-tool.ts';
import type { KvStore } from './kv-store.ts';
import { positiveLimit } from './option-checks.ts';

/** Options for {@link createKvTool}. */
export type KvToolOptions = {
  /** Where entries live: `createMemoryKvStore()` or `openSqliteKvStore(path)`. */
  store: KvStore;
  /** @default 256 */
  maxKeyLength?: number;
  /** The largest value, as JSON text in UTF-8 bytes. @default 65536 */
  maxValueBytes?: number;
  /** The most keys the store may hold; setting a new key beyond it fails. @default 10000 */
  maxEntries?: number;
  /** The most keys one `list` returns. @default 1000 */
  maxListKeys?: number;
};

/** What `kv` takes: `key` for get/set/delete, `value` for set, `prefix` and `limit` for list. */
export type KvInput = {
  action: 'get' | 'set' | 'delete' | 'list';
  key?: string | undefined;
  value?: unknown;
  prefix?: string | undefined;
  limit?: number | undefined;
};

/** What `kv` returns, by action. */
export type KvOutput =
  | { action: 'get'; key: string; found: boolean; value?: JsonValue }
  | { action: 'set'; key: string; created: boolean; bytes: number }
  | { action: 'delete'; key: string; deleted: boolean }
  | { action: 'list'; prefix: string; keys: string[]; truncated: boolean };

const KEY = /^[^\x00-\x1f\x7f]+$/;

/**
 * `kv` (effects `write`, idempotent): `get`, `set`, `delete` and `list` (by prefix) over a {@link KvStore}, with JSON
 * values and limits on key length, value size, entry count and page size. `get` and `list` only read, but the tool
 * declares its strongest effect. Every action is idempotent: repeating a `set` or `delete` leaves the same state.
 *
 * @example
 * const kv = createKvTool({ store: openSqliteKvStore('/runs/t1/progress/kv.sqlite'), maxEntries: 1000 });
 */
export function createKvTool(options: KvToolOptions): Tool<KvInput, KvOutput> {
  const { store, maxKeyLength = 256, maxValueBytes = 65_536, maxEntries = 10_000, maxListKeys = 1_000 } = options;
  for (const [name, value] of Object.entries({ maxKeyLength, maxValueBytes, maxEntries, maxListKeys })) {
    positiveLimit('kv', name, value);
  }
  const key = z.string().min(1).max(maxKeyLength).regex(KEY, 'must not contain control characters');
  const input = z
    .object({
      action: z.enum(['get', 'set', 'delete', 'list']),
      key: key.optional().describe('The key, for get, set and delete'),
      value: z.unknown().optional().describe('Any JSON value, for set'),
      prefix: z.string().max(maxKeyLength).optional().describe('Keys starting with this, for list. Default: all'),
      limit: z.number().int().min(1).max(maxListKeys).optional().describe(`For list; at most ${maxListKeys}`),
    })
    .superRefine((args, context) => {
      if (args.action !== 'list' && args.key === undefined) {
        context.addIssue({ code: 'custom', path: ['key'], message: `"${args.action}" needs a key` });
      }
      if (args.action === 'set' && args.value === undefined) {
        context.addIssue({ code: 'custom', path: ['value'], message: '"set" needs a value (use null to store null)' });
      }
    });
  return defineTool({
    name: 'kv',
    description:
      'A key-value store for small JSON values that persist between steps. action: get | set | delete | list ' +
      '(list takes a key prefix).',
    input,
    effects: 'write',
    idempotent: true,
    execute: async (args: KvInput): Promise<KvOutput> => {
      const name = args.key ?? '';
      switch (args.action) {
        case 'get': {
          const value = await store.get(name);
          return value === undefined
            ? { action: 'get', key: name, found: false }
            : { action: 'get', key: name, found: true, value };
        }
        case 'set':
          return set(store, name, args.value, { maxValueBytes, maxEntries });
        case 'delete':
          return { action: 'delete', key: name, deleted: await store.delete(name) };
        case 'list': {
          const prefix = args.prefix ?? '';
          return { action: 'list', prefix, ...(await store.list(prefix, args.limit ?? Math.min(100, maxListKeys))) };
        }
      }
    },
  });
}

async function set(
  store: KvStore,
  key: string,
  value: unknown,
  limits: { maxValueBytes: number; maxEntries: number },
): Promise<KvOutput> {
  const text = JSON.stringify(value);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxValueBytes) {
    throw new AgencyError(
      'limit_exceeded',
      `The value for "${key}" is ${bytes} bytes as JSON, over the ${limits.maxValueBytes}-byte limit; store less, ` +
        'or split it across several keys',
      { details: { key, bytes, maxValueBytes: limits.maxValueBytes } },
    );
  }
  const created = (await store.get(key)) === undefined;
  if (created && (await store.count()) >= limits.maxEntries) {
    throw new AgencyError(
      'limit_exceeded',
      `The store already holds ${limits.maxEntries} keys, its limit; delete keys you no longer need before adding "${key}"`,
      { details: { key, maxEntries: limits.maxEntries } },
    );
  }
  await store.set(key, JSON.parse(text) as JsonValue);
  return { action: 'set', key, created, bytes };
}
