import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZepFake, type ZepFake } from '../../../../test/support/zep-fake.ts';
import { AgencyError } from '../../../core/errors.ts';
import { graphIdOf } from './zep-graph-ids.ts';
import { openZepMemoryStore, type ZepMemoryStoreOptions } from './zep-memory-store.ts';

const user = { kind: 'user', id: 'u1' } as const;
let fake: ZepFake;
let n = 0;
beforeAll(async () => {
  fake = await startZepFake();
});
afterAll(async () => {
  expect(fake.violations).toEqual([]);
  await fake.close();
});

const open = (options: Partial<ZepMemoryStoreOptions> = {}) =>
  openZepMemoryStore({ apiKey: fake.apiKey, baseUrl: fake.baseUrl, graphPrefix: `t${++n}`, maxRetries: 0, ...options });

async function failure(promise: Promise<unknown>): Promise<AgencyError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!AgencyError.isInstance(error)) throw new Error(`expected an AgencyError, got ${String(error)}`);
  return error;
}

describe('the Zep store', () => {
  it('keeps one graph per scope and one episode per entry, and lists its scopes', async () => {
    const store = await open({ graphPrefix: 'layout' });
    await store.put(user, { kind: 'fact', key: 'k', text: 'one' });
    await store.put(user, { kind: 'fact', key: 'k', text: 'two' });
    await store.put({ kind: 'task', id: 'ünï: code' }, { kind: 'fact', text: 'x' });
    const episodes = fake.episodes(graphIdOf('layout', user));
    expect(episodes.map((e) => JSON.parse(e.content).text)).toEqual(['two']);
    expect(episodes[0]?.source).toBe('json');
    expect(await store.scopes()).toEqual([
      { kind: 'task', id: 'ünï: code' },
      { kind: 'user', id: 'u1' },
    ]);
  });

  it('refuses an entry over the Zep episode limit before calling Zep (the contract stores 1 MiB; Zep cannot)', async () => {
    const store = await open();
    const before = fake.requests.filter((r) => r === 'POST /graph').length;
    const error = await failure(store.put(user, { kind: 'fact', text: 'x'.repeat(10_001) }));
    expect(error.code).toBe('limit_exceeded');
    expect(error.message).toMatch(/at most 10000/);
    expect(fake.requests.filter((r) => r === 'POST /graph').length).toBe(before);
    await store.put(user, { kind: 'fact', text: 'x'.repeat(9_000) });
  });

  it('honours ttl on reads only: the expired episode stays in Zep until deleted', async () => {
    let time = Date.UTC(2025, 0, 1);
    const store = await open({ graphPrefix: 'ttl', now: () => time });
    const brief = await store.put(user, { kind: 'fact', text: 'ephemeral', metadata: { ttl: 1000 } });
    time += 2000;
    expect(await store.query([user], { topK: 10 })).toEqual([]);
    expect(fake.episodes(graphIdOf('ttl', user))).toHaveLength(1);
    expect(await store.delete(user, brief.id)).toBe(true);
    expect(fake.episodes(graphIdOf('ttl', user))).toHaveLength(0);
  });

  it('ignores episodes in its graphs that agency did not write', async () => {
    const store = await open({ graphPrefix: 'foreign' });
    await store.put(user, { kind: 'fact', text: 'mine' });
    const response = await fetch(`${fake.baseUrl}/graph`, {
      method: 'POST',
      headers: { authorization: `Api-Key ${fake.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ graph_id: graphIdOf('foreign', user), type: 'text', data: '{"id":"x","text":"y"}' }),
    });
    expect(response.status).toBe(200);
    expect((await store.query([user], { topK: 10 })).map((e) => e.text)).toEqual(['mine']);
  });

  it('refuses a scope holding more episodes than it reads, instead of cutting it', async () => {
    const store = await open({ maxEpisodesPerScope: 2 });
    await store.put(user, { kind: 'fact', text: 'a' });
    await store.put(user, { kind: 'fact', text: 'b' });
    const error = await failure(store.query([user], { topK: 1 }));
    expect(error.code).toBe('limit_exceeded');
    expect(error.message).toMatch(/maxEpisodesPerScope/);
  });

  it('refuses bad options', async () => {
    expect((await failure(open({ apiKey: ' ' }))).code).toBe('missing_api_key');
    expect((await failure(open({ graphPrefix: 'Bad-Prefix' }))).message).toMatch(/graphPrefix/);
    expect((await failure(open({ maxEpisodesPerScope: 0 }))).message).toMatch(/maxEpisodesPerScope/);
  });
});

describe('the Zep store when Zep fails', () => {
  const secret = 'zep_live_secret_ABCDEF0123456789';

  it('a refused key names the endpoint and never shows the key, even when Zep echoes it', async () => {
    const store = await open({ apiKey: secret });
    fake.failNext(/^GET \/graph\//, { status: 401, body: JSON.stringify({ message: `bad key Api-Key ${secret}` }) });
    const echoed = await failure(store.put(user, { kind: 'fact', text: 'x' }));
    expect(echoed.message).toContain('Zep GET /graph/{graphId} refused the API key (401)');
    const wrong = await failure(store.query([user], { topK: 1 }));
    expect(wrong.message).toContain('Zep GET /graph/episodes/graph/{graphId} refused the API key (401)');
    for (const error of [echoed, wrong]) {
      expect(error.retryable).toBe(false);
      expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.toContain(secret);
      expect(`${error.message}`).not.toContain(secret.slice(4, 20));
    }
  });

  it('429 and 500 become retryable errors naming the endpoint, with the key redacted from the body', async () => {
    const store = await open();
    await store.put(user, { kind: 'fact', text: 'x' });
    fake.failNext(/^POST \/graph$/, { status: 429 });
    const limited = await failure(store.put(user, { kind: 'fact', text: 'y' }));
    expect(limited.message).toBe('Zep POST /graph is rate limiting (429); retry after a pause');
    expect(limited.retryable).toBe(true);
    fake.failNext(/^DELETE /, { status: 500, body: JSON.stringify({ message: `boom ${fake.apiKey}` }) });
    const [entry] = await store.query([user], { topK: 1 });
    const failed = await failure(store.delete(user, entry?.id ?? ''));
    expect(failed.message).toMatch(/^Zep DELETE \/graph\/episodes\/\{uuid\} failed on the server \(500\)/);
    expect(failed.message).not.toContain(fake.apiKey);
    expect(failed.retryable).toBe(true);
  });

  it('a malformed answer (not JSON, or not the shape of the SDK type) names the endpoint', async () => {
    const store = await open();
    await store.put(user, { kind: 'fact', text: 'x' });
    fake.failNext(/^GET \/graph\/episodes\//, { malformed: '<html>gateway</html>' });
    const html = await failure(store.query([user], { topK: 1 }));
    expect(html.message).toMatch(/^Zep GET \/graph\/episodes\/graph\/\{graphId\} gave no usable answer/);
    fake.failNext(/^GET \/graph\/episodes\//, { malformed: JSON.stringify({ episodes: [{ uuid: 7 }] }) });
    const shape = await failure(store.query([user], { topK: 1 }));
    expect(shape.message).toMatch(/^Zep GET \/graph\/episodes\/graph\/\{graphId\} gave no usable answer/);
    fake.failNext(/^POST \/graph$/, { malformed: '{"uuid":"u"}' });
    const added = await failure(store.put(user, { kind: 'fact', text: 'y' }));
    expect(added.message).toMatch(/^Zep POST \/graph gave no usable answer/);
  });

  it('an unreachable Zep is memory_store_unavailable naming the endpoint', async () => {
    const gone = await startZepFake();
    await gone.close();
    const store = await open({ baseUrl: gone.baseUrl });
    const error = await failure(store.query([user], { topK: 1 }));
    expect(error.code).toBe('memory_store_unavailable');
    expect(error.message).toMatch(/^Zep GET \/graph\/episodes\/graph\/\{graphId\} gave no usable answer/);
  });
});
