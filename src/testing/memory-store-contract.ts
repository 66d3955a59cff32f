import { basicCases } from './memory-contract/basic-cases.ts';
import { batchCases } from './memory-contract/batch-cases.ts';
import { hostileCases } from './memory-contract/hostile-cases.ts';
import { managerCases } from './memory-contract/manager-cases.ts';
import type { ContractCase, MakeContractStore } from './memory-contract/support.ts';

export type { ContractCase, ContractContext, ContractStore, MakeContractStore } from './memory-contract/support.ts';

/**
 * The `MemoryStore` contract (memory-store.ts, docs/memory.md) as a list of cases, each on a fresh store: put, query
 * and delete; putMany (the store's own, or the put-by-put fallback) as a put of each entry in order; replacement by
 * id and key; filters; the order; topK and maxTokens; TTL; channels and precedence and redaction through a
 * MemoryManager; concurrent writers; unicode; large entries; and hostile input (SQL and
 * full-text query syntax, NUL, lone surrogates) in content and in queries. It asserts with `node:assert`, so it runs
 * under any test runner.
 *
 * @example
 * import { memoryStoreContract } from 'agency/testing';
 * describe('my store', () => {
 *   for (const test of memoryStoreContract(({ now }) => createMyStore({ now }))) it(test.name, test.run);
 * });
 */
export function memoryStoreContract(makeStore: MakeContractStore): ContractCase[] {
  return [...basicCases, ...batchCases, ...managerCases, ...hostileCases].map(([name, body]) => ({
    name,
    run: async () => {
      let time = Date.UTC(2025, 0, 1);
      const made = await makeStore({ now: () => time });
      const store = 'store' in made ? made.store : made;
      try {
        await body({ store, now: () => time, tick: (ms = 1000) => void (time += ms) });
      } finally {
        if ('store' in made) await made.close();
      }
    },
  }));
}
