import { describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { estimateTokens, truncateToTokens } from '../core/tokens.ts';
import { createInMemoryMemoryStore } from './in-memory-memory-store.ts';
import { formatScope, type MemoryScope, parseScope } from './memory-store.ts';

const user: MemoryScope = { kind: 'user', id: 'u1' };
const agent: MemoryScope = { kind: 'agent', id: 'a1' };

function fixedStore(start = Date.UTC(2025, 0, 1)) {
  let time = start;
  const clock = { now: () => time, tick: (ms = 1000) => (time += ms) };
  return { store: createInMemoryMemoryStore({ now: clock.now }), clock };
}

describe('scopes', () => {
  it('formats and parses kind:id', () => {
    expect(formatScope(user)).toBe('user:u1');
    expect(parseScope('project:web:app')).toEqual({ kind: 'project', id: 'web:app' });
  });

  it('refuses unknown kinds and empty ids', () => {
    expect(() => parseScope('galaxy:x')).toThrow(/kind one of agent\|user/);
    expect(() => parseScope('user:')).toThrow(AgencyError);
    expect(() => parseScope('user')).toThrow(AgencyError);
  });
});

describe('tokens', () => {
  it('estimates ceil(chars / 4)', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
  });

  it('truncates within the bound and never splits a surrogate pair', () => {
    const cut = truncateToTokens('x'.repeat(100), 5);
    expect(cut).toBe(`${'x'.repeat(19)}…`);
    expect(estimateTokens(cut)).toBeLessThanOrEqual(5);
    expect(truncateToTokens('short', 5)).toBe('short');
    expect(truncateToTokens('a😀😀😀😀😀', 1)).toBe('a😀…');
    expect(truncateToTokens('ab😀😀😀😀', 1)).toBe('ab…');
  });
});

describe('createInMemoryMemoryStore', () => {
  it('assigns ids and createdAt, and returns copies', async () => {
    const { store } = fixedStore();
    const stored = await store.put(user, { kind: 'fact', text: 'Lives in Lisbon', tags: ['geo'] });
    expect(stored).toEqual({
      id: 'mem_000001',
      kind: 'fact',
      text: 'Lives in Lisbon',
      tags: ['geo'],
      scope: user,
      metadata: { createdAt: '2025-01-01T00:00:00.000Z' },
    });
    stored.tags?.push('mutated');
    const [again] = await store.query([user], { topK: 5 });
    expect(again?.tags).toEqual(['geo']);
  });

  it('replaces by id and by key within a scope, keeping the id', async () => {
    const { store } = fixedStore();
    const first = await store.put(user, { kind: 'preference', key: 'tone', text: 'Formal' });
    const second = await store.put(user, { kind: 'preference', key: 'tone', text: 'Casual' });
    expect(second.id).toBe(first.id);
    await store.put(agent, { kind: 'preference', key: 'tone', text: 'Neutral' });
    const byId = await store.put(user, { id: first.id, kind: 'preference', key: 'tone', text: 'Brief' });
    expect(byId.id).toBe(first.id);
    const all = await store.query([user, agent], { topK: 10 });
    expect(all.map((e) => `${formatScope(e.scope)} ${e.text}`).sort()).toEqual(['agent:a1 Neutral', 'user:u1 Brief']);
  });

  it('ranks by score, then recency, then id', async () => {
    const { store, clock } = fixedStore();
    await store.put(user, { id: 'p2', kind: 'fact', text: 'deploy pipeline uses GitHub actions' });
    await store.put(user, { id: 'p1', kind: 'fact', text: 'deploy pipeline uses GitHub actions too' });
    clock.tick();
    await store.put(user, { id: 'c', kind: 'fact', text: 'the deploy happens on Tuesdays' });
    await store.put(user, { id: 'd', kind: 'fact', title: 'Deploy', text: 'weekly' });
    await store.put(user, { kind: 'fact', text: 'unrelated note' });
    const found = await store.query([user], { text: 'Deploy pipeline', topK: 10 });
    // d: a title match (2) and newest; p1, p2: two text matches (2), older, by id; c: one text match (1).
    expect(found.map((e) => e.id)).toEqual(['d', 'p1', 'p2', 'c']);
    const recent = await store.query([user], { topK: 2 });
    expect(recent.map((e) => e.id)).toEqual(['c', 'd']);
  });

  it('filters by kinds, tags (all of), keys and scopes', async () => {
    const { store } = fixedStore();
    await store.put(user, { kind: 'fact', key: 'k1', text: 'one', tags: ['a', 'b'] });
    await store.put(user, { kind: 'episode', key: 'k2', text: 'two', tags: ['a'] });
    await store.put(agent, { kind: 'fact', key: 'k3', text: 'three', tags: ['a', 'b'] });
    const texts = async (scopes: MemoryScope[], q: object) =>
      (await store.query(scopes, { topK: 10, ...q })).map((e) => e.text).sort();
    expect(await texts([user], { tags: ['a', 'b'] })).toEqual(['one']);
    expect(await texts([user, agent], { kinds: ['fact'] })).toEqual(['one', 'three']);
    expect(await texts([user, agent], { keys: ['k2', 'k3'] })).toEqual(['three', 'two']);
    expect(await texts([{ kind: 'org', id: 'none' }], {})).toEqual([]);
  });

  it('honours topK, maxTokens (skipping entries that do not fit) and ttl', async () => {
    const { store, clock } = fixedStore();
    await store.put(user, { id: 'long', kind: 'fact', text: 'x'.repeat(40) });
    clock.tick();
    await store.put(user, { id: 'short', kind: 'fact', text: 'y'.repeat(8) });
    clock.tick();
    await store.put(user, { id: 'brief', kind: 'fact', text: 'z'.repeat(8), metadata: { ttl: 5000 } });
    expect((await store.query([user], { topK: 2 })).map((e) => e.id)).toEqual(['brief', 'short']);
    expect((await store.query([user], { topK: 10, maxTokens: 5 })).map((e) => e.id)).toEqual(['brief', 'short']);
    clock.tick(5000);
    expect((await store.query([user], { topK: 10 })).map((e) => e.id)).toEqual(['short', 'long']);
  });

  it('deletes one entry and says whether it existed', async () => {
    const { store } = fixedStore();
    const stored = await store.put(user, { kind: 'fact', text: 'gone soon' });
    expect(await store.delete(agent, stored.id)).toBe(false);
    expect(await store.delete(user, stored.id)).toBe(true);
    expect(await store.delete(user, stored.id)).toBe(false);
    expect(await store.query([user], { topK: 5 })).toEqual([]);
  });

  it('refuses bad scopes, entries and queries with invalid_argument', async () => {
    const { store } = fixedStore();
    await expect(store.put({ kind: 'user', id: '' }, { kind: 'fact', text: 'x' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(store.put(user, { kind: '', text: 'x' })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(store.query([user], { topK: -1 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(
      store.put(user, { kind: 'fact', text: 'x', metadata: { createdAt: 'yesterday' } }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
