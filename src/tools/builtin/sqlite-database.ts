import { type ChildProcess, fork } from 'node:child_process';
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SQLInputValue } from 'node:sqlite';
import { abortedError } from '../../core/clock.ts';
import { AgencyError } from '../../core/errors.ts';
import type { SqlDatabase, SqlParams, SqlQueryResult } from './sql-database.ts';
import type { SqliteChildConfig, SqliteChildRequest, SqliteChildResponse } from './sqlite-child.ts';

/** Options for {@link openSqliteDatabase}. */
export type SqliteDatabaseOptions = {
  /**
   * Open the file read-only and deny every write in SQLite's authorizer. Set false only for a database the agent
   * owns. ATTACH, DETACH, `load_extension` and pragmas other than schema listings are refused either way.
   * @default true
   */
  readOnly?: boolean;
  /** How long a statement waits for another connection's lock, in ms. @default 5000 */
  busyTimeoutMs?: number;
};

// The child is a sibling module; under Node's type stripping it is `.ts`, once built it is `.js`.
const CHILD = fileURLToPath(
  new URL(`./sqlite-child${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

type Pending = { resolve(result: SqlQueryResult): void; reject(error: unknown): void };
type Session = { child: ChildProcess; pending: Map<number, Pending> };

/**
 * A {@link SqlDatabase} over a SQLite file, read-only by default. node:sqlite cannot interrupt a statement, so
 * queries run in a child process: a slow query never blocks the event loop, and aborting it (the tool's timeout
 * does) kills that process; the next query starts a fresh one. The child kills itself if agency dies.
 *
 * @throws AgencyError `invalid_argument` for a relative path. A file that cannot be opened fails the first query
 * with `invalid_config`.
 * @example
 * const sql = createSqlTool({ database: openSqliteDatabase('/srv/data/catalog.sqlite') });
 */
export function openSqliteDatabase(
  path: string,
  { readOnly = true, busyTimeoutMs = 5_000 }: SqliteDatabaseOptions = {},
): SqlDatabase {
  if (typeof path !== 'string' || (path !== ':memory:' && !isAbsolute(path))) {
    throw new AgencyError('invalid_argument', `SQLite path ${JSON.stringify(path)} must be absolute`, {
      details: { field: 'path' },
    });
  }
  const config: SqliteChildConfig = { path, readOnly, busyTimeoutMs };
  let session: Session | undefined;
  let nextId = 1;
  let closed = false;
  const stop = (current: Session, reason: unknown) => {
    if (session === current) session = undefined;
    stopSession(current, reason);
  };

  return {
    dialect: 'sqlite',
    readOnly,
    query: ({ sql, params, maxRows, signal }) =>
      new Promise<SqlQueryResult>((resolve, reject) => {
        if (closed) return reject(new AgencyError('invalid_argument', 'The SQLite database was closed'));
        if (signal?.aborted) return reject(abortedError(signal));
        const current = (session ??= startSession(config, stop));
        const id = nextId++;
        const onAbort = () => stop(current, abortedError(signal));
        const done = () => signal?.removeEventListener('abort', onAbort);
        current.pending.set(id, {
          resolve: (result) => (done(), resolve(result)),
          reject: (error) => (done(), reject(error)),
        });
        signal?.addEventListener('abort', onAbort, { once: true });
        idle(current.child, false);
        const request: SqliteChildRequest = { id, sql, params: bindable(params), maxRows };
        current.child.send(request);
      }),
    close: async () => {
      closed = true;
      if (session) stop(session, new AgencyError('aborted', 'The SQLite database was closed'));
    },
  };
}

function startSession(config: SqliteChildConfig, stop: (session: Session, reason: unknown) => void): Session {
  const child = fork(CHILD, [JSON.stringify(config)], {
    execArgv: [],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
  const session: Session = { child, pending: new Map() };
  child.on('message', (response: SqliteChildResponse) => {
    const waiter = session.pending.get(response.id);
    session.pending.delete(response.id);
    if (session.pending.size === 0) idle(child, true);
    if (response.ok) {
      const { id: _id, ok: _ok, ...result } = response;
      waiter?.resolve(result);
    } else waiter?.reject(failure(config.path, config.readOnly, response));
  });
  const gone = (why: string) => stop(session, new AgencyError('internal', `The SQLite query process ${why}`));
  child.on('error', (error) => gone(`failed: ${error.message}`));
  child.on('exit', (code, signal) => gone(`exited (${signal ?? `code ${String(code)}`})`));
  return session;
}

function stopSession(session: Session, reason: unknown): void {
  for (const waiter of session.pending.values()) waiter.reject(reason);
  session.pending.clear();
  session.child.kill('SIGKILL');
}

// An idle child must not keep agency running; a busy one must, or its answer would be lost.
function idle(child: ChildProcess, isIdle: boolean): void {
  const channel = child.channel as { ref(): void; unref(): void } | null | undefined;
  if (isIdle) {
    child.unref();
    channel?.unref();
  } else {
    child.ref();
    channel?.ref();
  }
}

function bindable(params: SqlParams): SQLInputValue[] | Record<string, SQLInputValue> {
  const value = (item: unknown): SQLInputValue =>
    typeof item === 'boolean' ? (item ? 1 : 0) : (item as SQLInputValue);
  if (Array.isArray(params)) return params.map(value);
  return Object.fromEntries(Object.entries(params).map(([key, item]) => [key, value(item)]));
}

function failure(path: string, readOnly: boolean, response: { message: string; denied?: string; open?: boolean }) {
  if (response.open) {
    return new AgencyError('invalid_config', `Cannot open the SQLite database ${path}: ${response.message}`, {
      details: { path },
    });
  }
  if (response.denied !== undefined) {
    // ATTACH (VACUUM INTO attaches too), load_extension and most pragmas are refused in every mode.
    const always = !readOnly || /^(ATTACH|the function|PRAGMA)/.test(response.denied);
    const why = always
      ? `it would use ${response.denied}, which the sql tool never allows`
      : `the database is read-only and the query would use ${response.denied}; only reads (SELECT) are allowed`;
    return new AgencyError('sql_refused', `The query was refused: ${why}.`, { details: { denied: response.denied } });
  }
  if (/readonly database/i.test(response.message)) {
    return new AgencyError('sql_refused', `The query was refused: the database is read-only (${response.message}).`);
  }
  return new AgencyError('invalid_argument', `SQLite rejected the query: ${response.message}`);
}
