// The child process behind openSqliteDatabase. node:sqlite cannot interrupt a running statement, so queries run
// here, where a timeout can SIGKILL them without blocking or outliving agency.
import { constants, DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import type { JsonValue } from '../../core/messages.ts';
import { authorizeSqlite } from './sqlite-authorizer.ts';

/** How the child is configured: one JSON argument on its command line. */
export type SqliteChildConfig = { path: string; readOnly: boolean; busyTimeoutMs: number };

/** One query sent to the child. */
export type SqliteChildRequest = {
  id: number;
  sql: string;
  params: SQLInputValue[] | Record<string, SQLInputValue>;
  maxRows: number;
};

/** The child's answer to one request. */
export type SqliteChildResponse =
  | {
      id: number;
      ok: true;
      columns: string[];
      rows: JsonValue[][];
      truncated: boolean;
      changes?: number;
      lastInsertRowid?: number | string;
    }
  | { id: number; ok: false; message: string; denied?: string; open?: boolean };

// A statement can run for a long time without returning to the event loop, so the parent's death is watched from
// another thread: once this process is orphaned it kills itself rather than finish a query nobody will read.
function watchParent(): void {
  const code = `
    const { workerData } = require('node:worker_threads');
    setInterval(() => { if (process.ppid !== workerData) process.kill(process.pid, 'SIGKILL'); }, 250);`;
  new Worker(code, { eval: true, workerData: process.ppid });
}

function open(config: SqliteChildConfig): {
  db?: DatabaseSync;
  error?: string;
  denied: { reason?: string | undefined };
} {
  const denied: { reason?: string | undefined } = {};
  try {
    const db = new DatabaseSync(config.path, {
      readOnly: config.readOnly,
      timeout: config.busyTimeoutMs,
      allowExtension: false,
    });
    db.setAuthorizer((action, arg1, arg2) => {
      const refusal = authorizeSqlite(config.readOnly, action, arg1, arg2);
      if (refusal === undefined) return constants.SQLITE_OK;
      denied.reason ??= refusal;
      return constants.SQLITE_DENY;
    });
    return { db, denied };
  } catch (error) {
    return { error: (error as Error).message, denied };
  }
}

function run(statement: StatementSync, request: SqliteChildRequest) {
  statement.setReadBigInts(true);
  statement.setReturnArrays(true);
  const columns = statement.columns().map((column) => column.name);
  const args = (Array.isArray(request.params) ? request.params : [request.params]) as SQLInputValue[];
  if (columns.length === 0) {
    const { changes, lastInsertRowid } = statement.run(...args);
    const rowid = Number.isSafeInteger(Number(lastInsertRowid)) ? Number(lastInsertRowid) : String(lastInsertRowid);
    return { columns, rows: [], truncated: false, changes: Number(changes), lastInsertRowid: rowid };
  }
  const rows: JsonValue[][] = [];
  let truncated = false;
  for (const row of statement.iterate(...args)) {
    if (rows.length === request.maxRows) {
      truncated = true;
      break;
    }
    rows.push((row as unknown as unknown[]).map(toJson));
  }
  return { columns, rows, truncated };
}

// Integers past 2^53 would lose digits as numbers, so they come back as strings; blobs come back as base64.
function toJson(value: unknown): JsonValue {
  if (typeof value === 'bigint') {
    const safe = value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER);
    return safe ? Number(value) : value.toString();
  }
  if (value instanceof Uint8Array) return { base64: Buffer.from(value).toString('base64') };
  if (typeof value === 'number' || typeof value === 'string') return value;
  return null;
}

function main(): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('sqlite-child must be started with an IPC channel');
  watchParent();
  const { db, error, denied } = open(JSON.parse(process.argv[2] ?? '{}') as SqliteChildConfig);
  process.on('disconnect', () => process.exit(0));
  process.on('message', (request: SqliteChildRequest) => {
    denied.reason = undefined;
    let response: SqliteChildResponse;
    try {
      if (!db) response = { id: request.id, ok: false, open: true, message: error ?? 'not open' };
      else response = { id: request.id, ok: true, ...run(db.prepare(request.sql), request) };
    } catch (failure) {
      const message = (failure as Error).message;
      response = { id: request.id, ok: false, message, ...(denied.reason ? { denied: denied.reason } : {}) };
    }
    send(response);
  });
}

main();
