import { constants } from 'node:sqlite';

// SQLite asks the authorizer about every action a statement takes while it is compiled. Denying there is exact:
// it sees through views, triggers and CTEs, where a keyword check on the text would not.

const READ_ACTIONS = new Set([constants.SQLITE_SELECT, constants.SQLITE_READ, constants.SQLITE_RECURSIVE]);

const WRITE_ACTIONS = new Map<number, string>([
  [constants.SQLITE_INSERT, 'INSERT into'],
  [constants.SQLITE_UPDATE, 'UPDATE'],
  [constants.SQLITE_DELETE, 'DELETE from'],
  [constants.SQLITE_CREATE_TABLE, 'CREATE TABLE'],
  [constants.SQLITE_CREATE_INDEX, 'CREATE INDEX'],
  [constants.SQLITE_CREATE_VIEW, 'CREATE VIEW'],
  [constants.SQLITE_CREATE_TRIGGER, 'CREATE TRIGGER'],
  [constants.SQLITE_CREATE_TEMP_TABLE, 'CREATE TEMP TABLE'],
  [constants.SQLITE_CREATE_TEMP_INDEX, 'CREATE TEMP INDEX'],
  [constants.SQLITE_CREATE_TEMP_VIEW, 'CREATE TEMP VIEW'],
  [constants.SQLITE_CREATE_TEMP_TRIGGER, 'CREATE TEMP TRIGGER'],
  [constants.SQLITE_CREATE_VTABLE, 'CREATE VIRTUAL TABLE'],
  [constants.SQLITE_DROP_TABLE, 'DROP TABLE'],
  [constants.SQLITE_DROP_INDEX, 'DROP INDEX'],
  [constants.SQLITE_DROP_VIEW, 'DROP VIEW'],
  [constants.SQLITE_DROP_TRIGGER, 'DROP TRIGGER'],
  [constants.SQLITE_DROP_TEMP_TABLE, 'DROP TEMP TABLE'],
  [constants.SQLITE_DROP_TEMP_INDEX, 'DROP TEMP INDEX'],
  [constants.SQLITE_DROP_TEMP_VIEW, 'DROP TEMP VIEW'],
  [constants.SQLITE_DROP_TEMP_TRIGGER, 'DROP TEMP TRIGGER'],
  [constants.SQLITE_DROP_VTABLE, 'DROP VIRTUAL TABLE'],
  [constants.SQLITE_ALTER_TABLE, 'ALTER TABLE'],
  [constants.SQLITE_ANALYZE, 'ANALYZE'],
  [constants.SQLITE_REINDEX, 'REINDEX'],
  [constants.SQLITE_TRANSACTION, 'BEGIN/COMMIT'],
  [constants.SQLITE_SAVEPOINT, 'SAVEPOINT'],
]);

// Pragmas that only describe the schema. Every other pragma can change the connection or the file (journal_mode,
// writable_schema) or reveal host paths (database_list), so none of them is allowed, in either mode.
// Their argument names a table or an index.
const SCHEMA_PRAGMAS = new Set([
  'table_info',
  'table_xinfo',
  'table_list',
  'index_list',
  'index_info',
  'index_xinfo',
  'foreign_key_list',
]);
// Readable without an argument; with one, they write.
const VALUE_PRAGMAS = new Set(['user_version', 'schema_version', 'application_id']);

const FORBIDDEN_FUNCTIONS = new Set(['load_extension']);

/**
 * Decides one authorizer callback: undefined allows the action, a string names what was refused. ATTACH and
 * DETACH are refused in both modes, because attaching a file would reach outside the configured database.
 */
export function authorizeSqlite(readOnly: boolean, action: number, arg1: string | null, arg2: string | null) {
  if (READ_ACTIONS.has(action)) return undefined;
  if (action === constants.SQLITE_FUNCTION) {
    return FORBIDDEN_FUNCTIONS.has((arg2 ?? '').toLowerCase()) ? `the function ${arg2 ?? ''}()` : undefined;
  }
  if (action === constants.SQLITE_PRAGMA) {
    const name = (arg1 ?? '').toLowerCase();
    if (SCHEMA_PRAGMAS.has(name) || (VALUE_PRAGMAS.has(name) && arg2 === null)) return undefined;
    return `PRAGMA ${name}${arg2 === null ? '' : ' = …'}`;
  }
  if (action === constants.SQLITE_ATTACH || action === constants.SQLITE_DETACH) return 'ATTACH/DETACH';
  const write = WRITE_ACTIONS.get(action);
  if (write !== undefined) return readOnly ? `${write}${arg1 ? ` "${arg1}"` : ''}` : undefined;
  return `action ${action}`;
}
