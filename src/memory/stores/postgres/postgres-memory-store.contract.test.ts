import { afterAll, beforeAll, describe, it } from 'vitest';
import { startPostgres, type TempPostgres } from '../../../../test/support/postgres.ts';
import { memoryStoreContract } from '../../../testing/memory-store-contract.ts';
import { openPostgresMemoryStore } from './postgres-memory-store.ts';

let server: TempPostgres;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.stop());

describe('the PostgreSQL store honours the MemoryStore contract', () => {
  let n = 0;
  for (const test of memoryStoreContract(async ({ now }) => {
    const store = await openPostgresMemoryStore({ connectionString: server.url, schema: `contract_${++n}`, now });
    return { store, close: () => store.close() };
  })) {
    it(test.name, test.run, 30_000);
  }
});
