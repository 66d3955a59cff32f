import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../tool-registry.ts';
import { createSqlTool, type SqlOutput } from './sql.ts';
import type { SqlDatabase } from './sql-database.ts';
import { checkSqlText } from './sql-text.ts';
import { openSqliteDatabase } from './sqlite-database.ts';

let dir: string;
let file: string;
let readOnly: SqlDatabase;
let writable: SqlDatabase;
const digest = () => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agency-sql-'));
  file = join(dir, 'shop.sqlite');
  const db = new DatabaseSync(file);
  db.exec(`
    CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, secret TEXT, avatar BLOB, big INTEGER);
    INSERT INTO users (name, secret, avatar, big) VALUES
      ('Ada', 's1', x'0102', 9007199254740993), ('Grace', 's2', NULL, 1), ('Linus', 's3', NULL, 2);
  `);
  db.close();
  readOnly = openSqliteDatabase(file);
  writable = openSqliteDatabase(join(dir, 'scratch.sqlite'), { readOnly: false });
});
afterAll(async () => {
  await readOnly.close();
  await writable.close();
  rmSync(dir, { recursive: true, force: true });
});

function sql(database: SqlDatabase, options: { maxRows?: number; timeoutMs?: number } = {}) {
  const registry = createToolRegistry([createSqlTool({ database, ...options })]);
  return (input: unknown, timeoutMs?: number) =>
    registry.run({ toolCallId: 'c1', toolName: 'sql', input }, timeoutMs ? { timeoutMs } : {});
}

describe('sql on a read-only database', () => {
  it('runs parameterized queries and returns columns and rows, with big integers and blobs kept exact', async () => {
    const run = sql(readOnly);
    const byName = await run({ query: 'SELECT id, name FROM users WHERE name = ?', params: ['Grace'] });
    expect(byName.output).toEqual({ columns: ['id', 'name'], rows: [[2, 'Grace']], row_count: 1, truncated: false });
    const named = await run({ query: 'SELECT name, avatar, big FROM users WHERE id = :id', params: { id: 1 } });
    expect((named.output as SqlOutput).rows).toEqual([['Ada', { base64: 'AQI=' }, '9007199254740993']]);
    const schema = await run({ query: 'PRAGMA table_info(users)' });
    expect((schema.output as SqlOutput).row_count).toBe(5);
  });

  it('stops at the row limit and says so', async () => {
    const outcome = await sql(readOnly, { maxRows: 2 })({ query: 'SELECT name FROM users ORDER BY id' });
    expect(outcome.output).toMatchObject({ rows: [['Ada'], ['Grace']], row_count: 2, truncated: true });
  });

  it.each([
    ['INSERT INTO users (name) VALUES (?)', ['Eve']],
    ['UPDATE users SET secret = ? WHERE id = 1', ['x']],
    ['DELETE FROM users WHERE id = ?', [1]],
    ['DROP TABLE users', undefined],
    ['CREATE TABLE t (x)', undefined],
    ['CREATE TEMP TABLE t (x)', undefined],
    ['ATTACH ? AS other', [join(tmpdir(), 'agency-sql-attached.sqlite')]],
    ['PRAGMA user_version = 7', undefined],
    ['PRAGMA journal_mode = DELETE', undefined],
    ['PRAGMA writable_schema = 1', undefined],
    ['BEGIN IMMEDIATE', undefined],
    ['VACUUM INTO ?', [join(tmpdir(), 'agency-sql-copy.sqlite')]],
    ['SELECT load_extension(?)', ['/tmp/evil.so']],
  ])('refuses %s and leaves the file unchanged', async (query, params) => {
    const before = digest();
    const outcome = await sql(readOnly)({ query, params });
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe('sql_refused');
    expect(digest()).toBe(before);
    expect(['attached', 'copy'].some((name) => existsSync(join(tmpdir(), `agency-sql-${name}.sqlite`)))).toBe(false);
  });

  it.each([
    ["SELECT * FROM users WHERE name = 'x' OR '1'='1'", /string literal; put values in "params"/],
    ['SELECT 1; DROP TABLE users', /more than one statement/],
    ['SELECT 1; -- trailing comment is fine\n; SELECT 2', /more than one statement/],
    ["SELECT x'41'", /string literal/],
    ['SELECT * FROM users WHERE id = ?', /placeholders but no "params"/],
  ])('refuses injection-shaped text: %s', async (query, message) => {
    const outcome = await sql(readOnly)({ query });
    expect(outcome.error?.code).toBe('sql_refused');
    expect(outcome.error?.message).toMatch(message);
  });

  it('treats hostile values in params as data', async () => {
    const before = digest();
    const outcome = await sql(readOnly)({
      query: 'SELECT name FROM users WHERE name = ?',
      params: ["x' OR '1'='1'; DROP TABLE users; --"],
    });
    expect(outcome.output).toMatchObject({ rows: [], row_count: 0 });
    expect(digest()).toBe(before);
  });

  it('checks params against the placeholders', async () => {
    const run = sql(readOnly);
    const cases: Array<[unknown, RegExp]> = [
      [{ query: 'SELECT ? + ?', params: [1] }, /2 \? placeholders but 1 params/],
      [{ query: 'SELECT :a', params: { b: 1 } }, /missing a; unused b/],
      [{ query: 'SELECT 1', params: [1] }, /no placeholders/],
      [{ query: 'SELECT ? , :a', params: [1] }, /mixes \? and :name/],
    ];
    for (const [input, message] of cases) expect((await run(input)).error?.message).toMatch(message);
  });

  it('reports SQL errors the model can fix', async () => {
    const outcome = await sql(readOnly)({ query: 'SELECT * FROM nope' });
    expect(outcome.error?.code).toBe('invalid_argument');
    expect(outcome.error?.message).toMatch(/no such table: nope/);
  });

  it('ends a runaway query at the timeout without blocking, and the next query works', async () => {
    const run = sql(readOnly);
    const started = performance.now();
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 20);
    const runaway = await run(
      { query: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c' },
      400,
    );
    clearInterval(ticker);
    expect(runaway.error?.code).toBe('tool_timeout');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(ticks).toBeGreaterThan(5);
    expect((await run({ query: 'SELECT count(*) AS n FROM users' })).output).toMatchObject({ rows: [[3]] });
  });

  it('is a read tool, idempotent', () => {
    const tool = createSqlTool({ database: readOnly });
    expect([tool.effects, tool.idempotent]).toEqual(['read', true]);
  });
});

describe('sql on a writable database', () => {
  it('writes when configured to, reports changes, and still refuses ATTACH', async () => {
    const run = sql(writable);
    expect(createSqlTool({ database: writable }).effects).toBe('write');
    expect((await run({ query: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)' })).ok).toBe(true);
    const insert = await run({ query: 'INSERT INTO notes (body) VALUES (?)', params: ['hello'] });
    expect(insert.output).toMatchObject({ changes: 1, last_insert_rowid: 1 });
    expect((await run({ query: 'SELECT body FROM notes' })).output).toMatchObject({ rows: [['hello']] });
    const attach = await run({ query: 'ATTACH ? AS other', params: [file] });
    expect(attach.error?.code).toBe('sql_refused');
  });
});

describe('checkSqlText', () => {
  it('allows quoted identifiers, comments and a trailing semicolon', () => {
    expect(checkSqlText('SELECT "a;b", [c], `d` FROM t -- it\'s fine\n /* ; */ WHERE x = :x;  ')).toEqual({
      sql: 'SELECT "a;b", [c], `d` FROM t -- it\'s fine\n /* ; */ WHERE x = :x',
      positional: 0,
      numbered: false,
      named: ['x'],
    });
  });
});
