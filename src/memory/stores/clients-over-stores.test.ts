// Seed 002's MemoryClient and DatabaseClient are thin views over a store: the same calls give the same answers on the
// SQLite, PostgreSQL and Redis stores as on the in-memory one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TempPostgres } from '../../../test/support/postgres.ts';
import { findRedisServer, startRedis, type TempRedis } from '../../../test/support/redis.ts';
import { createDatabaseClient, createMemoryClient } from '../clients.ts';
import { createInMemoryMemoryStore } from '../in-memory-memory-store.ts';
import type { MemoryScope, MemoryStore } from '../memory-store.ts';
import { openPostgresMemoryStore } from './postgres/postgres-memory-store.ts';
import { openRedisMemoryStore } from './redis/redis-memory-store.ts';
import { openSqliteMemoryStore } from './sqlite/sqlite-memory-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'agency-clients-'));
let server: TempPostgres;
let redis: TempRedis | undefined;
// Redis is checked where redis-server runs (bash scripts/ensure-redis.sh installs it); elsewhere its rows are skipped.
const redisServer = findRedisServer();
if ('missing' in redisServer) console.warn(`Skipping the clients over Redis: ${redisServer.missing}`);
const closers: Array<() => unknown> = [];
beforeAll(async () => {
  [server, redis] = await Promise.all([startPostgres(), 'missing' in redisServer ? undefined : startRedis()]);
}, 120_000);
afterAll(async () => {
  for (const close of closers) await close();
  await server?.stop();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const scope: MemoryScope = { kind: 'task', id: 'task_1' };
const frozen = () => Date.UTC(2025, 0, 1);
let n = 0;

type StoreRow = [string, (now: () => number) => Promise<MemoryStore>];
const redisRow: StoreRow = [
  'Redis',
  async (now) => {
    const store = await openRedisMemoryStore({ url: redis!.url, prefix: `clients:${++n}`, now });
    closers.push(() => store.close());
    return store;
  },
];
const STORES: StoreRow[] = [
  ['in-memory', async (now) => createInMemoryMemoryStore({ now })],
  [
    'SQLite',
    async (now) => {
      const store = openSqliteMemoryStore({ path: join(dir, `c${++n}.db`), now });
      closers.push(() => store.close());
      return store;
    },
  ],
  [
    'PostgreSQL',
    async (now) => {
      const store = await openPostgresMemoryStore({ connectionString: server.url, schema: `clients_${++n}`, now });
      closers.push(() => store.close());
      return store;
    },
  ],
  ...('missing' in redisServer ? [] : [redisRow]),
];

describe.each(STORES)('MemoryClient and DatabaseClient over the %s store', (_name, makeStore) => {
  it('a stream reads back in append order within one millisecond, searches, and clears', async () => {
    const client = createMemoryClient({ store: await makeStore(frozen), scope, now: frozen });
    for (const text of ['first cursor', 'second cursor', 'third']) await client.append('notes', text);
    await client.append('other', 'cursors elsewhere');
    expect((await client.read('notes')).map((e) => e.text)).toEqual(['first cursor', 'second cursor', 'third']);
    expect((await client.read('notes', { limit: 2 })).map((e) => e.text)).toEqual(['second cursor', 'third']);
    expect((await client.search('cursor', { streamKey: 'notes' })).map((e) => e.text).sort()).toEqual([
      'first cursor',
      'second cursor',
    ]);
    expect(await client.clear('notes')).toBe(3);
    expect(await client.read('notes')).toEqual([]);
    expect(await client.read('other')).toHaveLength(1);
  });

  it('records are written, replaced, read, queried by field and searched', async () => {
    const db = createDatabaseClient({ store: await makeStore(Date.now), scope });
    await db.write('profiles', 'u1', { name: 'Ada', plan: 'free' });
    await db.write('profiles', 'u1', { name: 'Ada', plan: 'pro' });
    await db.write('profiles', 'u2', { name: 'Grace', plan: 'free', note: "'; DROP TABLE x; --" });
    expect(await db.read('profiles', 'u1')).toEqual({ name: 'Ada', plan: 'pro' });
    expect(await db.read('profiles', 'nobody')).toBeNull();
    expect((await db.query('profiles', { plan: 'free' })).map((r) => r.key)).toEqual(['u2']);
    expect((await db.search('grace')).map((r) => r.key)).toEqual(['u2']);
  });
});
