import { describe, it } from 'vitest';
import { memoryStoreContract } from '../testing/memory-store-contract.ts';
import { createInMemoryMemoryStore } from './in-memory-memory-store.ts';

describe('the in-memory store honours the MemoryStore contract', () => {
  for (const test of memoryStoreContract(({ now }) => createInMemoryMemoryStore({ now }))) it(test.name, test.run);
});
