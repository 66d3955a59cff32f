import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZepFake, type ZepFake } from '../../../../test/support/zep-fake.ts';
import { memoryStoreContract } from '../../../testing/memory-store-contract.ts';
import { openZepMemoryStore } from './zep-memory-store.ts';

// The one contract case Zep cannot meet: a Zep episode holds at most 10,000 characters, so a 1 MiB entry is
// refused (zep-memory-store.test.ts asserts the refusal) instead of stored.
const OVER_ZEP_LIMIT = /^large entries:/;

let fake: ZepFake;
beforeAll(async () => {
  fake = await startZepFake();
});
afterAll(async () => {
  expect(fake.violations).toEqual([]);
  await fake.close();
});

describe('the Zep store honours the MemoryStore contract (against a local fake of Zep)', () => {
  let n = 0;
  const cases = memoryStoreContract(async ({ now }) => {
    const store = await openZepMemoryStore({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      graphPrefix: `contract${++n}`,
      now,
    });
    return { store, close: () => store.close() };
  });
  it('skips exactly one case, the one over the Zep episode limit', () => {
    expect(cases.filter((test) => OVER_ZEP_LIMIT.test(test.name))).toHaveLength(1);
  });
  for (const test of cases.filter((test) => !OVER_ZEP_LIMIT.test(test.name))) it(test.name, test.run, 30_000);
});
