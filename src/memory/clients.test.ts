import { describe, expect, it } from 'vitest';
import { createDatabaseClient, createMemoryClient } from './clients.ts';
import { createInMemoryMemoryStore } from './in-memory-memory-store.ts';
import type { MemoryScope } from './memory-store.ts';

const scope: MemoryScope = { kind: 'task', id: 'task_1' };
const frozen = () => Date.UTC(2025, 0, 1);

describe('createMemoryClient', () => {
  it('appends and reads a stream in append order, even within one millisecond', async () => {
    const store = createInMemoryMemoryStore({ now: frozen });
    const client = createMemoryClient({ store, scope, now: frozen });
    for (const text of ['first', 'second', 'third']) await client.append('notes', text);
    await client.append('other', { text: 'elsewhere', kind: 'fact', tags: ['x'] });
    expect((await client.read('notes')).map((e) => e.text)).toEqual(['first', 'second', 'third']);
    expect((await client.read('notes', { limit: 2 })).map((e) => e.text)).toEqual(['second', 'third']);
    const [other] = await client.read('other');
    expect(other).toMatchObject({ kind: 'fact', tags: ['stream', 'stream:other', 'x'] });
  });

  it('searches one stream or all, and clears a stream', async () => {
    const store = createInMemoryMemoryStore();
    const client = createMemoryClient({ store, scope });
    await client.append('a', 'pagination uses cursors');
    await client.append('b', 'cursors expire after an hour');
    await store.put(scope, { kind: 'fact', text: 'cursors outside any stream' });
    expect((await client.search('cursors')).map((e) => e.text).sort()).toEqual([
      'cursors expire after an hour',
      'pagination uses cursors',
    ]);
    expect((await client.search('cursors', { streamKey: 'b' })).map((e) => e.text)).toEqual([
      'cursors expire after an hour',
    ]);
    expect(await client.clear('a')).toBe(1);
    expect(await client.read('a')).toEqual([]);
    expect(await client.read('b')).toHaveLength(1);
  });
});

describe('createDatabaseClient', () => {
  it('writes, replaces and reads JSON values by collection and key', async () => {
    const db = createDatabaseClient({ store: createInMemoryMemoryStore(), scope });
    await db.write('profiles', 'u1', { name: 'Ada', plan: 'free' });
    await db.write('profiles', 'u1', { name: 'Ada', plan: 'pro' });
    await db.write('settings', 'u1', [1, 2, 3]);
    expect(await db.read('profiles', 'u1')).toEqual({ name: 'Ada', plan: 'pro' });
    expect(await db.read('settings', 'u1')).toEqual([1, 2, 3]);
    expect(await db.read('profiles', 'nobody')).toBeNull();
  });

  it('queries by field equality and searches values', async () => {
    const db = createDatabaseClient({ store: createInMemoryMemoryStore(), scope });
    await db.write('profiles', 'u1', { name: 'Ada', plan: 'pro', tags: ['a'] });
    await db.write('profiles', 'u2', { name: 'Grace', plan: 'free' });
    await db.write('profiles', 'u3', { name: 'Linus', plan: 'pro', tags: ['b'] });
    await db.write('teams', 't1', { name: 'Ada team', plan: 'pro' });
    const pro = await db.query('profiles', { plan: 'pro' });
    expect(pro.map((r) => r.key).sort()).toEqual(['u1', 'u3']);
    expect(await db.query('profiles', { tags: ['b'] })).toEqual([
      { collection: 'profiles', key: 'u3', value: { name: 'Linus', plan: 'pro', tags: ['b'] } },
    ]);
    expect((await db.search('ada')).map((r) => `${r.collection}/${r.key}`).sort()).toEqual(['profiles/u1', 'teams/t1']);
    expect((await db.search('ada', { collection: 'teams' })).map((r) => r.key)).toEqual(['t1']);
  });

  it('refuses empty keys and collections with a colon', async () => {
    const db = createDatabaseClient({ store: createInMemoryMemoryStore(), scope });
    await expect(db.write('a:b', 'k', 1)).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(db.read('a', '')).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
