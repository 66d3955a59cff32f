import { DatabaseSync } from 'node:sqlite';
import { AgencyError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/messages.ts';
import type { KvStore } from './kv-store.ts';

/** Options for {@link openSqliteKvStore}. */
export type SqliteKvStoreOptions = {
  /** The table that holds the entries; letters, digits and `_`. @default 'kv' */
  table?: string;
  /** How long a write waits for another connection's lock, in ms. @default 5000 */
  busyTimeoutMs?: number;
  /** The clock stamped on each entry's `updated_at`. @default Date.now */
  now?: () => number;
};

/**
 * A {@link KvStore} in a SQLite file (`node:sqlite`), in WAL mode so readers never block the writer. Values are
 * stored as JSON text. The file is created when missing. Calls are synchronous under the hood; each is one short
 * indexed statement.
 *
 * @example
 * const kv = createKvTool({ store: openSqliteKvStore('/srv/agency/kv.sqlite') });
 */
export function openSqliteKvStore(
  path: string,
  { table = 'kv', busyTimeoutMs = 5_000, now = Date.now }: SqliteKvStoreOptions = {},
): KvStore {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(table)) {
    throw new AgencyError('invalid_argument', `table ${JSON.stringify(table)} must be letters, digits and "_"`, {
      details: { field: 'table' },
    });
  }
  const db = new DatabaseSync(path, { timeout: busyTimeoutMs });
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  db.exec(
    `CREATE TABLE IF NOT EXISTS "${table}" (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, updated_at INTEGER NOT NULL) STRICT`,
  );
  const statements = {
    get: db.prepare(`SELECT value FROM "${table}" WHERE key = ?`),
    set: db.prepare(
      `INSERT INTO "${table}" (key, value, updated_at) VALUES (?, ?, ?) ` +
        'ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    ),
    delete: db.prepare(`DELETE FROM "${table}" WHERE key = ?`),
    // The range start uses the primary key; substr keeps the match exact for every prefix.
    list: db.prepare(`SELECT key FROM "${table}" WHERE key >= ? AND substr(key, 1, ?) = ? ORDER BY key LIMIT ?`),
    count: db.prepare(`SELECT count(*) AS n FROM "${table}"`),
  };
  return {
    get: async (key) => {
      const row = statements.get.get(key) as { value: string } | undefined;
      return row === undefined ? undefined : (JSON.parse(row.value) as JsonValue);
    },
    set: async (key, value) => {
      statements.set.run(key, JSON.stringify(value), now());
    },
    delete: async (key) => Number(statements.delete.run(key).changes) > 0,
    list: async (prefix, limit) => {
      const rows = statements.list.all(prefix, [...prefix].length, prefix, limit + 1) as Array<{ key: string }>;
      return { keys: rows.slice(0, limit).map((row) => row.key), truncated: rows.length > limit };
    },
    count: async () => Number((statements.count.get() as { n: number }).n),
    close: async () => {
      if (db.isOpen) db.close();
    },
  };
}
