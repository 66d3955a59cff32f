import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { AgencyError } from '../../../core/errors.ts';
import { meaningModel } from '../__fixtures__/meaning-model.ts';
import { openSqliteMemoryStore } from './sqlite-memory-store.ts';
import { SCHEMA_VERSION } from './schema.ts';

const dir = mkdtempSync(join(tmpdir(), 'agency-sqlite-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const WRITER = new URL('./__fixtures__/memory-writer.ts', import.meta.url).pathname;
const agent = (id: string) => ({ kind: 'agent', id }) as const;

/** Starts a writer process; resolves `seen` once it has reported `atLeast` writes. */
function startWriter(file: string, scopeId: string, count: number, atLeast = count) {
  const child = spawn(process.execPath, [WRITER, file, scopeId, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let written = 0;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const seen = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      written += chunk.toString().split('\n').length - 1;
      if (written >= atLeast) resolve();
    });
    child.on('exit', (code) =>
      written >= atLeast ? resolve() : reject(new Error(`writer exited ${code}: ${stderr}`)),
    );
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, seen, exited, written: () => written };
}

describe('the SQLite memory store', () => {
  it('two processes writing the same file both land every entry, and a raced key keeps one entry', async () => {
    const file = join(dir, 'two.db');
    openSqliteMemoryStore({ path: file }).close();
    const [a, b] = [startWriter(file, 'one', 150), startWriter(file, 'two', 150)];
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
    const store = openSqliteMemoryStore({ path: file });
    expect(await store.query([agent('one'), agent('two')], { topK: 1000 })).toHaveLength(300);
    const raced = await store.query([agent('shared')], { topK: 10 });
    expect(raced).toHaveLength(1);
    expect(raced[0]?.text).toMatch(/^(one|two) 149$/);
    expect(await store.query([agent('one')], { topK: 5, text: 'entry 77' })).toHaveLength(5);
    store.close();
  }, 60_000);

  it('kill -9 during writes leaves a readable store that takes more writes', async () => {
    const file = join(dir, 'killed.db');
    const writer = startWriter(file, 'victim', 0, 40);
    await writer.seen;
    writer.child.kill('SIGKILL');
    await writer.exited;
    const check = new DatabaseSync(file);
    expect(check.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    check.close();
    const store = openSqliteMemoryStore({ path: file });
    const found = await store.query([agent('victim')], { topK: 100_000 });
    expect(found.length).toBeGreaterThanOrEqual(40);
    expect(found.length).toBeLessThanOrEqual(writer.written() + 1);
    expect(await store.query([agent('victim')], { topK: 3, text: 'payload' })).toHaveLength(3);
    await store.put(agent('victim'), { kind: 'fact', text: 'after the crash' });
    expect((await store.query([agent('victim')], { topK: 1, text: 'crash' }))[0]?.text).toBe('after the crash');
    store.close();
  }, 60_000);

  it('keeps entries across reopen, and the schema version is recorded', async () => {
    const file = join(dir, 'reopen.db');
    const first = openSqliteMemoryStore({ path: file });
    await first.put(agent('a'), { kind: 'fact', key: 'k', text: 'remembered across restarts' });
    first.close();
    const second = openSqliteMemoryStore({ path: file });
    expect((await second.query([agent('a')], { topK: 1, text: 'restarts' }))[0]?.key).toBe('k');
    second.close();
    const db = new DatabaseSync(file);
    expect(db.prepare('PRAGMA user_version').get()).toEqual({ user_version: SCHEMA_VERSION });
    db.close();
  });

  it('refuses a file of a newer schema, a file that is not a database, and a folder that does not exist', () => {
    const newer = join(dir, 'newer.db');
    const db = new DatabaseSync(newer);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openSqliteMemoryStore({ path: newer })).toThrow(
      new RegExp(`schema version ${SCHEMA_VERSION + 1}.*open it with a newer agency`),
    );
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'this is not a database at all, just some words '.repeat(200));
    const error = catchError(() => openSqliteMemoryStore({ path: garbage }));
    expect(error.code).toBe('memory_store_invalid');
    expect(error.message).toContain(garbage);
    const missing = catchError(() => openSqliteMemoryStore({ path: join(dir, 'no', 'such', 'dir', 'm.db') }));
    expect(missing.code).toBe('memory_store_unavailable');
    expect(() => openSqliteMemoryStore({ path: join(dir, 'x.db'), candidateCap: 0 })).toThrow(/candidateCap/);
  });

  it('ranks only the newest candidateCap matches of a broad word, and BM25 orders them', async () => {
    let time = Date.UTC(2025, 0, 1);
    const store = openSqliteMemoryStore({ path: join(dir, 'cap.db'), candidateCap: 5, now: () => (time += 1000) });
    for (let i = 0; i < 20; i++) await store.put(agent('a'), { id: `e${i}`, kind: 'fact', text: `common word ${i}` });
    await store.put(agent('a'), { id: 'titled', kind: 'fact', title: 'rare', text: 'common' });
    await store.put(agent('a'), { id: 'body', kind: 'fact', text: 'rare common and much more text to dilute it' });
    const broad = await store.query([agent('a')], { topK: 100, text: 'common' });
    expect(broad.map((e) => e.id).sort()).toEqual(['body', 'e17', 'e18', 'e19', 'titled'].sort());
    const rare = await store.query([agent('a')], { topK: 100, text: 'rare' });
    expect(rare.map((e) => e.id)).toEqual(['titled', 'body']);
    store.close();
  });

  it('putMany is one transaction: a row the database refuses leaves none of the batch, and vectors go in calls of the model limit', async () => {
    const file = join(dir, 'batch.db');
    const calls: string[][] = [];
    const store = openSqliteMemoryStore({ path: file, embedding: { model: meaningModel(calls) } });
    await store.put(agent('a'), { kind: 'fact', key: 'kept', text: 'before the batch' });
    const side = new DatabaseSync(file);
    side.exec(
      "CREATE TRIGGER poison BEFORE INSERT ON memory_entries WHEN NEW.doc LIKE '%poison%' " +
        "BEGIN SELECT RAISE(ABORT, 'poisoned row'); END",
    );
    side.close();
    const batch = Array.from({ length: 40 }, (_, i) => ({ kind: 'fact', text: `car number ${i}` }));
    const poisoned = [{ kind: 'fact', key: 'kept', text: 'replaced' }, ...batch, { kind: 'fact', text: 'poison' }];
    await expect(store.putMany?.(agent('a'), poisoned)).rejects.toThrow(/poisoned row/);
    expect((await store.query([agent('a')], { topK: 100 })).map((e) => e.text)).toEqual(['before the batch']);
    calls.length = 0;
    const stored = (await store.putMany?.(agent('a'), batch)) ?? [];
    expect(calls.map((values) => values.length)).toEqual([16, 16, 8]);
    const found = await store.query([agent('a')], { topK: 100, text: 'automobile' });
    expect(found.map((e) => e.id).sort()).toEqual(stored.map((e) => e.id).sort());
    store.close();
  });
});

function catchError(body: () => unknown): AgencyError {
  try {
    body();
  } catch (error) {
    if (error instanceof AgencyError) return error;
    throw error;
  }
  throw new Error('expected an AgencyError');
}
