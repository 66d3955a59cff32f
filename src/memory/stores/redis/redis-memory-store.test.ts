import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRedisServer, startRedis, type TempRedis } from '../../../../test/support/redis.ts';
import { meaningModel } from '../__fixtures__/meaning-model.ts';
import { openRedisMemoryStore } from './redis-memory-store.ts';

const found = findRedisServer();
if ('missing' in found) console.warn(`Skipping the Redis store tests: ${found.missing}`);

let server: TempRedis;
beforeAll(async () => {
  if (!('missing' in found)) server = await startRedis();
}, 60_000);
afterAll(() => server?.stop());
const agent = { kind: 'agent', id: 'a' } as const;

async function failureOf(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  return promise.then(
    () => ({ code: 'resolved', message: '' }),
    (caught: unknown) => caught as { code: string; message: string },
  );
}

describe.skipIf('missing' in found)('the Redis memory store', () => {
  it('keeps entries across reopen, and racing writers of one key from two clients leave one entry', async () => {
    const first = await openRedisMemoryStore({ url: server.url, prefix: 'shared' });
    const second = await openRedisMemoryStore({ url: server.url, prefix: 'shared' });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? first : second).put(agent, { kind: 'preference', key: 'k', text: `writer ${i}` }),
      ),
    );
    await first.put(agent, { kind: 'fact', text: 'Café au lait in 東京' });
    expect(await second.query([agent], { topK: 10, keys: ['k'] })).toHaveLength(1);
    expect((await second.query([agent], { topK: 5, text: 'CAFÉ' }))[0]?.text).toBe('Café au lait in 東京');
    expect(await second.scopes()).toEqual([agent]);
    await Promise.all([first.close(), second.close(), first.close()]);
    const again = await openRedisMemoryStore({ url: server.url, prefix: 'shared' });
    expect(await again.query([agent], { topK: 10 })).toHaveLength(2);
    const other = await openRedisMemoryStore({ url: server.url, prefix: 'other' });
    expect(await other.query([agent], { topK: 10 })).toEqual([]);
    await Promise.all([again.close(), other.close()]);
  });

  it('keeps scope, id, key and tag text out of key names: ":", "*", "?", "[" reach no other entry', async () => {
    const store = await openRedisMemoryStore({ url: server.url, prefix: 'inject' });
    const tricky = ['*', '?', '[a-z]*', 'a:*', 'x:s:*:docs', '\\', 'a b', '\u0000', '\ud800'];
    for (const [i, text] of tricky.entries()) {
      await store.put(
        { kind: 'user', id: text },
        { id: text, key: text, kind: 'fact', text: `entry ${i}`, tags: [text] },
      );
    }
    await store.put({ kind: 'user', id: 'a' }, { id: '*', kind: 'fact', text: 'plain a' });
    for (const [i, text] of tricky.entries()) {
      const scope = { kind: 'user', id: text } as const;
      const hits = await store.query([scope], { topK: 10, keys: [text], tags: [text] });
      expect(hits.map((entry) => [entry.id, entry.text])).toEqual([[text, `entry ${i}`]]);
      expect(await store.query([scope], { topK: 10, text: 'plain' })).toEqual([]);
    }
    expect(await store.delete({ kind: 'user', id: '*' }, '*')).toBe(true);
    expect((await store.query([{ kind: 'user', id: 'a' }], { topK: 5 })).map((entry) => entry.text)).toEqual([
      'plain a',
    ]);
    expect(await store.scopes()).toHaveLength(tricky.length);
    const client = createClient({ url: server.url });
    await client.connect();
    const names = await client.keys('inject:*');
    await client.close();
    for (const name of names) {
      expect(name).toMatch(
        /^inject:(scopes|rows|vec:(rows|data|ids)|s:[\w-]+:(docs|meta|words|keys|keyof|time|w:[\w-]+))$/,
      );
    }
    await store.close();
    await expect(openRedisMemoryStore({ url: server.url, prefix: 'a*b' })).rejects.toThrow(/"prefix" "a\*b" must be/);
    await expect(openRedisMemoryStore({ url: server.url, prefix: '' })).rejects.toThrow(/"prefix"/);
  });

  it('stores and finds a 16 MB entry, and a query of ten thousand words', async () => {
    const store = await openRedisMemoryStore({ url: server.url, prefix: 'huge' });
    const text = `needle ${'lorem ipsum dolor '.repeat(1_000_000)}`;
    const many = Array.from({ length: 10_000 }, (_, i) => `w${i}`);
    await store.put(agent, { id: 'big', kind: 'fact', text });
    await store.put(agent, { id: 'wide', kind: 'fact', text: many.join(' ') });
    const [hit] = await store.query([agent], { topK: 1, text: 'needle' });
    expect(hit?.text.length).toBe(text.length);
    expect((await store.query([agent], { topK: 5, text: many.join(' ') })).map((entry) => entry.id)).toEqual(['wide']);
    await store.close();
  }, 60_000);

  it('finds by meaning through vectors kept in Redis and searched in process', async () => {
    const embedding = { model: meaningModel(), minSimilarity: 0.3 };
    const store = await openRedisMemoryStore({ url: server.url, prefix: 'vectors', embedding });
    await store.put(agent, { id: 'car', kind: 'fact', text: 'I drive a car to work' });
    await store.put(agent, { id: 'cat', kind: 'fact', text: 'The kitten sleeps all day' });
    expect((await store.query([agent], { topK: 5, text: 'automobile' })).map((e) => e.id)).toEqual(['car']);
    const other = await openRedisMemoryStore({ url: server.url, prefix: 'vectors', embedding });
    await other.put(agent, { id: 'late', kind: 'fact', text: 'a feline friend' });
    await other.delete(agent, 'cat');
    await other.put(agent, { id: 'car', kind: 'fact', text: 'a bicycle' });
    expect((await store.query([agent], { topK: 5, text: 'kitten' })).map((e) => e.id)).toEqual(['late']);
    expect((await store.query([agent], { topK: 5, text: 'automobile' })).map((e) => e.id)).toEqual([]);
    await Promise.all([store.close(), other.close()]);
  });

  it('fails with the URL, its user and password hidden, when the server is unreachable or killed mid-write', async () => {
    const unreachable = await failureOf(openRedisMemoryStore({ url: 'redis://someone:hunter2@127.0.0.1:9' }));
    expect(unreachable.code).toBe('memory_store_unavailable');
    expect(unreachable.message).toContain('Redis memory store at redis://***@127.0.0.1:9');
    expect(unreachable.message).not.toContain('hunter2');
    expect(unreachable.message).not.toContain('someone');
    const doomed = await startRedis({ password: 'hunter2' });
    try {
      const store = await openRedisMemoryStore({ url: doomed.url, prefix: 'doomed' });
      await store.put(agent, { id: 'before', kind: 'fact', text: 'written before the kill' });
      const writes = Array.from({ length: 200 }, (_, i) =>
        failureOf(store.put(agent, { kind: 'fact', text: `write ${i} ${'x'.repeat(10_000)}` })),
      );
      const exited = new Promise((resolve) => doomed.process.once('exit', resolve));
      doomed.process.kill('SIGKILL');
      await exited;
      const failures = (await Promise.all(writes)).filter((result) => result.code !== 'resolved');
      const after = await failureOf(store.query([agent], { topK: 1 }));
      for (const failure of [...failures, after]) {
        expect(failure.code).toBe('memory_store_unavailable');
        expect(failure.message).toMatch(/^Redis memory store at redis:\/\/\*\*\*@127\.0\.0\.1:\d+: /);
        expect(failure.message).not.toContain('hunter2');
      }
      await store.close();
    } finally {
      await doomed.stop();
    }
  }, 60_000);
});
