import { z } from 'zod';
import { AgencyError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/messages.ts';
import { defineTool, type Tool } from '../define-tool.ts';
import { positiveLimit } from './option-checks.ts';
import type { SqlDatabase, SqlParams } from './sql-database.ts';
import { checkSqlText, type SqlTextInfo } from './sql-text.ts';

/** Options for {@link createSqlTool}. */
export type SqlToolOptions = {
  /** The database, e.g. `openSqliteDatabase(path)` (read-only unless opened with `readOnly: false`). */
  database: SqlDatabase;
  /** Rows returned at most; the rest are dropped and `truncated` set. @default 200 */
  maxRows?: number;
  /** Allow `'…'` literals in the query text. Off, values must go through params. @default false */
  allowStringLiterals?: boolean;
  /** @default 30000 */
  timeoutMs?: number;
};

/** What `sql` takes. */
export type SqlInput = { query: string; params?: SqlParams | undefined };

/** What `sql` returns. */
export type SqlOutput = {
  columns: string[];
  rows: JsonValue[][];
  row_count: number;
  truncated: boolean;
  changes?: number;
  last_insert_rowid?: number | string;
};

const value = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * `sql` (effects `read` and idempotent on a read-only database, `write` otherwise): runs one parameterized statement
 * (`{ query, params }`) and returns columns and rows, up to `maxRows`. Several statements, string literals in the
 * text and placeholders that do not match `params` are refused with `sql_refused` before the database sees them;
 * a read-only database refuses writes itself.
 *
 * @example
 * const sql = createSqlTool({ database: openSqliteDatabase('/srv/data/catalog.sqlite'), maxRows: 100 });
 */
export function createSqlTool({
  database,
  maxRows = 200,
  allowStringLiterals = false,
  timeoutMs = 30_000,
}: SqlToolOptions): Tool<SqlInput, SqlOutput> {
  positiveLimit('sql', 'maxRows', maxRows);
  positiveLimit('sql', 'timeoutMs', timeoutMs);
  const mode = database.readOnly ? 'read-only' : 'read-write';
  return defineTool({
    name: 'sql',
    description:
      `Run one parameterized SQL statement against the ${mode} ${database.dialect} database. Put values in ` +
      `"params" and use ? (list) or :name (object) placeholders; never paste values into the query. Returns at most ${maxRows} rows.`,
    input: z.object({
      query: z.string().min(1).max(100_000).describe('One SQL statement with placeholders'),
      params: z
        .union([z.array(value), z.record(z.string(), value)])
        .optional()
        .describe('Values for the placeholders: a list for ?, an object for :name'),
    }),
    effects: database.readOnly ? 'read' : 'write',
    idempotent: database.readOnly,
    timeoutMs,
    execute: async ({ query, params }: SqlInput, { signal }) => {
      const info = checkSqlText(query, { allowStringLiterals });
      const bound = checkParams(info, params);
      const result = await database.query({ sql: info.sql, params: bound, maxRows, signal });
      return {
        columns: result.columns,
        rows: result.rows,
        row_count: result.rows.length,
        truncated: result.truncated,
        ...(result.changes === undefined ? {} : { changes: result.changes }),
        ...(result.lastInsertRowid === undefined ? {} : { last_insert_rowid: result.lastInsertRowid }),
      };
    },
  });
}

function checkParams(info: SqlTextInfo, params: SqlParams | undefined): SqlParams {
  const positional = info.positional > 0 || info.numbered;
  const named = info.named.length > 0;
  if (positional && named) throw refused('it mixes ? and :name placeholders; use one style');
  if (params === undefined || (Array.isArray(params) && params.length === 0 && !positional)) {
    if (positional || named) throw refused('it has placeholders but no "params"; send their values in "params"');
    return [];
  }
  if (Array.isArray(params)) {
    if (named) throw refused('it uses :name placeholders, so "params" must be an object keyed by name');
    if (!positional) throw refused('"params" were given but the query has no placeholders; use ? where they go');
    if (!info.numbered && params.length !== info.positional) {
      throw refused(`it has ${info.positional} ? placeholders but ${params.length} params`);
    }
    return params;
  }
  const keys = Object.keys(params);
  if (!named) {
    throw refused(
      positional
        ? 'it uses ? placeholders, so "params" must be a list'
        : '"params" were given but the query has no placeholders',
    );
  }
  const missing = info.named.filter((name) => !keys.includes(name));
  const extra = keys.filter((key) => !info.named.includes(key));
  if (missing.length > 0 || extra.length > 0) {
    const parts = [
      missing.length ? `missing ${missing.join(', ')}` : '',
      extra.length ? `unused ${extra.join(', ')}` : '',
    ];
    throw refused(`"params" do not match the placeholders (${parts.filter(Boolean).join('; ')})`);
  }
  return params;
}

function refused(why: string): AgencyError {
  return new AgencyError('sql_refused', `The query was refused: ${why}.`);
}
