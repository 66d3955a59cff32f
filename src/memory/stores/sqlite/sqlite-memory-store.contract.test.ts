import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { memoryStoreContract } from '../../../testing/memory-store-contract.ts';
import { openSqliteMemoryStore } from './sqlite-memory-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'agency-sqlite-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the SQLite store honours the MemoryStore contract', () => {
  let n = 0;
  for (const test of memoryStoreContract(({ now }) => {
    const store = openSqliteMemoryStore({ path: join(dir, `case-${++n}.db`), now });
    return { store, close: () => store.close() };
  })) {
    it(test.name, test.run);
  }
});
