import { DatabaseSync } from 'node:sqlite';
import { type PromptRecords, type PromptStoreDeps, createPromptStore } from '../create-prompt-store.ts';
import type { PromptStore } from '../prompt-store.ts';
import {
  AUDIT_COLUMNS,
  type PromptAuditRow,
  type PromptRow,
  VERSION_COLUMNS,
  checkTablePrefix,
  fromAuditRow,
  fromRow,
  toAuditRow,
  toRow,
} from './prompt-rows.ts';
import { auditTableSql, versionsTableSql } from './prompt-schema.ts';

/** Options for {@link createSqlitePromptStore}. */
export type SqlitePromptStoreOptions = PromptStoreDeps & {
  /** The database file (created when missing), or `:memory:`. */
  path: string;
  /** The tables are `<table>_versions` and `<table>_audit`. @default 'agency_prompt' */
  table?: string;
  /** How long a write waits for another connection's lock, in ms. @default 5000 */
  busyTimeoutMs?: number;
};

/** A SQLite prompt store, and how to close its database. */
export type SqlitePromptStore = PromptStore & { close(): void };

/**
 * A `PromptStore` in a SQLite file (`node:sqlite`, WAL mode). Each put reads the latest version and inserts the next
 * one and its audit row in one `BEGIN IMMEDIATE` transaction, so writers in any number of processes get versions of
 * their own; the primary key `(id, version)` makes an overwrite impossible. Rows are checked when read back.
 *
 * @example
 * const store = createSqlitePromptStore({ path: '/srv/agency/prompts.sqlite', after: BUILTIN_PROMPTS });
 */
export function createSqlitePromptStore({
  path,
  table = 'agency_prompt',
  busyTimeoutMs = 5_000,
  ...deps
}: SqlitePromptStoreOptions): SqlitePromptStore {
  const prefix = checkTablePrefix(table);
  const versions = `${prefix}_versions`;
  const audit = `${prefix}_audit`;
  const db = new DatabaseSync(path, { timeout: busyTimeoutMs });
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  db.exec(versionsTableSql(versions, 'sqlite'));
  db.exec(auditTableSql(audit, 'sqlite'));
  const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');
  const statements = {
    one: db.prepare(`SELECT * FROM ${versions} WHERE id = ? AND version = ?`),
    latest: db.prepare(`SELECT * FROM ${versions} WHERE id = ? ORDER BY version DESC LIMIT 1`),
    all: db.prepare(`SELECT * FROM ${versions} WHERE id = ? ORDER BY version`),
    latestOfEach: db.prepare(
      `SELECT v.* FROM ${versions} v JOIN (SELECT id, max(version) AS version FROM ${versions} GROUP BY id) m ` +
        'ON v.id = m.id AND v.version = m.version ORDER BY v.id',
    ),
    insert: db.prepare(`INSERT INTO ${versions} (${VERSION_COLUMNS.join(', ')}) VALUES (${placeholders(8)})`),
    insertAudit: db.prepare(`INSERT INTO ${audit} (${AUDIT_COLUMNS.join(', ')}) VALUES (${placeholders(9)})`),
    audit: db.prepare(`SELECT * FROM ${audit} ORDER BY seq`),
    auditOf: db.prepare(`SELECT * FROM ${audit} WHERE id = ? ORDER BY seq`),
  };
  const row = (found: unknown) => (found === undefined ? undefined : fromRow(versions, found as PromptRow));
  const records: PromptRecords = {
    read: async (id, version) =>
      row(version === undefined ? statements.latest.get(id) : statements.one.get(id, version)),
    list: async (id) =>
      (id === undefined ? statements.latestOfEach.all() : statements.all.all(id)).map(
        (found) => row(found) as NonNullable<ReturnType<typeof row>>,
      ),
    // Synchronous from BEGIN to COMMIT: nothing else in this process runs in between, and other processes wait.
    append: async (id, next) => {
      db.exec('BEGIN IMMEDIATE');
      try {
        const made = next(row(statements.latest.get(id)));
        statements.insert.run(...(toRow(made.template) as never[]));
        statements.insertAudit.run(...(toAuditRow(made.audit) as never[]));
        db.exec('COMMIT');
        return made.template;
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
    audit: async (id) =>
      (id === undefined ? statements.audit.all() : statements.auditOf.all(id)).map((found) =>
        fromAuditRow(audit, found as PromptAuditRow),
      ),
  };
  return Object.assign(createPromptStore(records, deps), { close: () => db.close() });
}
