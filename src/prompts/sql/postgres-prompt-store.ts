import pg from 'pg';
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

/** Options for {@link createPostgresPromptStore}: a pool of your own, or a connection string. */
export type PostgresPromptStoreOptions = PromptStoreDeps & {
  /** A pool to use; the store never ends it. */
  pool?: pg.Pool;
  /** `postgres://…`, when no `pool` is given; the store makes a pool and `close` ends it. */
  connectionString?: string;
  /** The tables are `<table>_versions` and `<table>_audit`, created when missing. @default 'agency_prompt' */
  table?: string;
};

/** A PostgreSQL prompt store, and how to close the pool it made. */
export type PostgresPromptStore = PromptStore & { close(): Promise<void> };

/**
 * A `PromptStore` in PostgreSQL (`pg`). Each put takes a transaction-scoped advisory lock on its id, reads the
 * latest version and inserts the next one and its audit row in one transaction, so writers on any number of
 * connections or hosts get versions of their own; the primary key `(id, version)` makes an overwrite impossible.
 * Rows are checked when read back: a row edited by hand into an invalid template is refused, naming it.
 *
 * @example
 * const store = createPostgresPromptStore({ connectionString: process.env.DATABASE_URL, after: BUILTIN_PROMPTS });
 */
export function createPostgresPromptStore({
  pool: given,
  connectionString,
  table = 'agency_prompt',
  ...deps
}: PostgresPromptStoreOptions): PostgresPromptStore {
  const prefix = checkTablePrefix(table);
  const versions = `${prefix}_versions`;
  const audit = `${prefix}_audit`;
  const pool = given ?? ownPool(connectionString);
  let ready: Promise<void> | undefined;
  // Made once; a failure (the server down) is tried again on the next call.
  const tables = () =>
    (ready ??= createTables(pool, prefix, versions, audit).catch((error: unknown) => {
      ready = undefined;
      throw error;
    }));
  const query = async <Row>(sql: string, values: unknown[] = []): Promise<Row[]> => {
    await tables();
    return (await pool.query(sql, values)).rows as Row[];
  };
  const rowsOf = (rows: PromptRow[]) => rows.map((row) => fromRow(versions, row));
  const records: PromptRecords = {
    read: async (id, version) =>
      rowsOf(
        version === undefined
          ? await query<PromptRow>(`SELECT * FROM ${versions} WHERE id = $1 ORDER BY version DESC LIMIT 1`, [id])
          : await query<PromptRow>(`SELECT * FROM ${versions} WHERE id = $1 AND version = $2`, [id, version]),
      )[0],
    list: async (id) =>
      rowsOf(
        id === undefined
          ? await query<PromptRow>(`SELECT DISTINCT ON (id) * FROM ${versions} ORDER BY id, version DESC`)
          : await query<PromptRow>(`SELECT * FROM ${versions} WHERE id = $1 ORDER BY version`, [id]),
      ),
    append: async (id, next) => {
      await tables();
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${versions}:${id}`]);
        const latest = await client.query<PromptRow>(
          `SELECT * FROM ${versions} WHERE id = $1 ORDER BY version DESC LIMIT 1`,
          [id],
        );
        const made = next(latest.rows[0] && fromRow(versions, latest.rows[0]));
        await client.query(insertSql(versions, VERSION_COLUMNS), toRow(made.template));
        await client.query(insertSql(audit, AUDIT_COLUMNS), toAuditRow(made.audit));
        await client.query('COMMIT');
        return made.template;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    audit: async (id) =>
      (id === undefined
        ? await query<PromptAuditRow>(`SELECT * FROM ${audit} ORDER BY seq`)
        : await query<PromptAuditRow>(`SELECT * FROM ${audit} WHERE id = $1 ORDER BY seq`, [id])
      ).map((row) => fromAuditRow(audit, row)),
  };
  return Object.assign(createPromptStore(records, deps), {
    close: async () => {
      if (!given) await pool.end();
    },
  });
}

// A pool of the store's own. An idle connection the server drops (a restart) is an 'error' event on the pool, which
// would end the process if nobody listened: the next query simply opens a new connection.
function ownPool(connectionString: string | undefined): pg.Pool {
  const pool = new pg.Pool(connectionString === undefined ? {} : { connectionString });
  pool.on('error', () => {});
  return pool;
}

function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
}

// Two stores creating the same tables at once would collide in the catalog: the creation holds a lock.
async function createTables(pool: pg.Pool, prefix: string, versions: string, audit: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agency-prompts:${prefix}`]);
    await client.query(versionsTableSql(versions, 'postgres'));
    await client.query(auditTableSql(audit, 'postgres'));
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
