import assert from 'node:assert/strict';
import type { MemoryScope, MemoryStore } from '../../memory/memory-store.ts';

/** What a contract case gets: a fresh store on a clock the case moves. */
export type ContractContext = {
  store: MemoryStore;
  /** The store's clock, in ms since the epoch. */
  now(): number;
  /** Moves the clock forward. @default 1000 ms */
  tick(ms?: number): void;
};

/** A store made for one contract case, and how to release it. */
export type ContractStore = MemoryStore | { store: MemoryStore; close(): void | Promise<void> };

/**
 * Makes a fresh, empty store for one case. It must read time from `deps.now` (for `createdAt` and `ttl`), and must
 * not share entries with the stores made for other cases.
 */
export type MakeContractStore = (deps: { now: () => number }) => ContractStore | Promise<ContractStore>;

/** One case of the contract: a name, and a run that rejects with an assertion error when the store breaks it. */
export type { ContractCase } from '../contract-case.ts';

/** The body of a contract case. */
export type ContractBody = (context: ContractContext) => Promise<void>;

/** Scopes the cases use. */
export const scopes = {
  user: { kind: 'user', id: 'u1' },
  agent: { kind: 'agent', id: 'a1' },
  org: { kind: 'org', id: 'acme' },
  task: { kind: 'task', id: 'task_1' },
} as const satisfies Record<string, MemoryScope>;

/** The ids of a query's entries, in order. */
export async function idsOf(store: MemoryStore, wanted: readonly MemoryScope[], query: object): Promise<string[]> {
  return (await store.query(wanted, { topK: 100, ...query })).map((entry) => entry.id);
}

/** Asserts that a promise rejects with an AgencyError of `code`. */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.equal((error as { code?: unknown }).code, code, `expected an AgencyError "${code}", got ${String(error)}`);
    return true;
  });
}
