import type { JsonValue } from '../../core/messages.ts';

/** A value bound to a placeholder. Booleans are stored as 1 and 0. */
export type SqlValue = string | number | boolean | null;

/** Values for the placeholders: a list for `?`, an object for `:name`, `@name` or `$name` (keys without sigil). */
export type SqlParams = readonly SqlValue[] | Readonly<Record<string, SqlValue>>;

/** One query for a {@link SqlDatabase}. */
export type SqlQuery = {
  /** One statement, already checked by the tool. */
  sql: string;
  params: SqlParams;
  /** Rows returned at most; `truncated` says more were available. */
  maxRows: number;
  /** Aborting ends the query. */
  signal?: AbortSignal;
};

/** What a query returned. Integers beyond 2^53 are strings; blobs are `{ base64 }`. */
export type SqlQueryResult = {
  columns: string[];
  rows: JsonValue[][];
  truncated: boolean;
  /** Rows changed, for a write without result columns. */
  changes?: number;
  lastInsertRowid?: number | string;
};

/**
 * The database port behind the `sql` tool. A read-only database must refuse writes itself, not trust the caller:
 * the SQLite implementation opens the file read-only and denies every write action in its authorizer.
 */
export type SqlDatabase = {
  readonly dialect: 'sqlite';
  readonly readOnly: boolean;
  query(query: SqlQuery): Promise<SqlQueryResult>;
  close(): Promise<void>;
};
