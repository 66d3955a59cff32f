import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../tool-registry.ts';
import { createKvTool, type KvToolOptions } from './kv.ts';
import { createMemoryKvStore, type KvStore } from './kv-store.ts';
import { openSqliteKvStore } from './sqlite-kv-store.ts';

let dir: string;
const stores: KvStore[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agency-kv-'));
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  rmSync(dir, { recursive: true, force: true });
});

const implementations: Array<[string, () => KvStore]> = [
  ['memory', () => createMemoryKvStore()],
  ['sqlite', () => openSqliteKvStore(join(dir, 'kv.sqlite'))],
];

function kv(store: KvStore, limits: Omit<KvToolOptions, 'store'> = {}) {
  stores.push(store);
  const registry = createToolRegistry([createKvTool({ store, ...limits })]);
  return (input: unknown) => registry.run({ toolCallId: 'c1', toolName: 'kv', input });
}

describe.each(implementations)('kv over the %s store', (_name, open) => {
  it('sets, gets, lists by prefix in code-point order, and deletes JSON values', async () => {
    const call = kv(open());
    expect((await call({ action: 'set', key: 'user:2', value: { name: 'Grace', tags: ['x'] } })).output).toEqual({
      action: 'set',
      key: 'user:2',
      created: true,
      bytes: 29,
    });
    await call({ action: 'set', key: 'user:10', value: 10 });
    await call({ action: 'set', key: 'user:é', value: null });
    await call({ action: 'set', key: 'order:1', value: 'pending' });
    expect((await call({ action: 'set', key: 'order:1', value: 'paid' })).output).toMatchObject({ created: false });
    expect((await call({ action: 'get', key: 'user:2' })).output).toEqual({
      action: 'get',
      key: 'user:2',
      found: true,
      value: { name: 'Grace', tags: ['x'] },
    });
    expect((await call({ action: 'get', key: 'user:é' })).output).toMatchObject({ found: true, value: null });
    expect((await call({ action: 'get', key: 'nope' })).output).toEqual({ action: 'get', key: 'nope', found: false });
    expect((await call({ action: 'list', prefix: 'user:' })).output).toEqual({
      action: 'list',
      prefix: 'user:',
      keys: ['user:10', 'user:2', 'user:é'],
      truncated: false,
    });
    expect((await call({ action: 'list', limit: 2 })).output).toMatchObject({
      keys: ['order:1', 'user:10'],
      truncated: true,
    });
    expect((await call({ action: 'delete', key: 'user:2' })).output).toMatchObject({ deleted: true });
    expect((await call({ action: 'delete', key: 'user:2' })).output).toMatchObject({ deleted: false });
  });

  it('enforces value size, entry count and key rules', async () => {
    const call = kv(open(), { maxValueBytes: 20, maxEntries: 2, maxKeyLength: 8 });
    const big = await call({ action: 'set', key: 'a', value: 'x'.repeat(30) });
    expect(big.error?.code).toBe('limit_exceeded');
    expect(big.error?.message).toMatch(/over the 20-byte limit/);
    await call({ action: 'set', key: 'a', value: 1 });
    await call({ action: 'set', key: 'b', value: 2 });
    const third = await call({ action: 'set', key: 'c', value: 3 });
    expect(third.error?.code).toBe('limit_exceeded');
    expect((await call({ action: 'set', key: 'a', value: 5 })).ok).toBe(true);
    for (const input of [
      { action: 'set', key: 'x'.repeat(9), value: 1 },
      { action: 'set', key: 'bad\nkey', value: 1 },
      { action: 'set', key: 'k' },
      { action: 'get' },
      { action: 'drop', key: 'a' },
    ]) {
      expect((await call(input)).error?.code).toBe('tool_invalid_input');
    }
  });
});

describe('openSqliteKvStore', () => {
  it('persists across reopening, in WAL mode', async () => {
    const path = join(dir, 'kv.sqlite');
    const first = openSqliteKvStore(path);
    await first.set('k', { v: 1 });
    await first.close();
    const second = openSqliteKvStore(path);
    stores.push(second);
    expect(await second.get('k')).toEqual({ v: 1 });
    const db = new DatabaseSync(path);
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    db.close();
  });

  it('treats keys as data: a key shaped like SQL injection is just a key', async () => {
    const store = openSqliteKvStore(join(dir, 'kv.sqlite'));
    stores.push(store);
    await store.set("x'); DROP TABLE kv; --", 1);
    await store.set('%', 2);
    expect(await store.list('%', 10)).toEqual({ keys: ['%'], truncated: false });
    expect(await store.count()).toBe(2);
  });
});
