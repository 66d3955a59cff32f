import { afterAll, beforeAll, describe, it } from 'vitest';
import { findRedisServer, startRedis, type TempRedis } from '../../../../test/support/redis.ts';
import { memoryStoreContract } from '../../../testing/memory-store-contract.ts';
import { openRedisMemoryStore } from './redis-memory-store.ts';

const found = findRedisServer();
if ('missing' in found) console.warn(`Skipping the Redis store contract: ${found.missing}`);

let server: TempRedis;
beforeAll(async () => {
  if (!('missing' in found)) server = await startRedis();
}, 60_000);
afterAll(() => server?.stop());

describe.skipIf('missing' in found)('the Redis store honours the MemoryStore contract', () => {
  let n = 0;
  for (const test of memoryStoreContract(async ({ now }) => {
    const store = await openRedisMemoryStore({ url: server.url, prefix: `contract:${++n}`, now });
    return { store, close: () => store.close() };
  })) {
    it(test.name, test.run, 30_000);
  }
});
