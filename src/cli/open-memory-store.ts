import { createMemoryManager } from '../memory/memory-manager.ts';
import type { MemoryScope, MemoryStore } from '../memory/memory-store.ts';
import { openSqliteMemoryStore } from '../memory/stores/sqlite/sqlite-memory-store.ts';
import type { MemoryContext } from '../task/runner-options.ts';
import type { MemoryStoreUrl } from './memory-store-url.ts';
import type { OperatorMemory } from './operator-config.ts';

/** A store opened for a command, and how to close it. */
export type OpenedMemoryStore = { store: MemoryStore; scopes(): MemoryScope[]; close(): void };

/** Opens the store a {@link MemoryStoreUrl} names. */
export function openMemoryStoreUrl(url: MemoryStoreUrl): OpenedMemoryStore {
  const store = openSqliteMemoryStore({ path: url.path });
  return { store, scopes: () => store.scopes(), close: () => store.close() };
}

/** Opens the operator's store for a run: the runner's memory factory, and how to close the store after. */
export function openRunMemory(memory: OperatorMemory): { memory: ReturnType<typeof runMemory>; close(): void } {
  const opened = openMemoryStoreUrl(memory.url);
  return { memory: runMemory(opened.store, memory), close: opened.close };
}

/**
 * The memory of a CLI run: a manager over the operator's store, with the operator's agent, org, team and project
 * channels, the run's user (`userId` of the spec) and its task. The runner journals its reads and writes as counts
 * and puts every write through the run's policy.
 */
export function runMemory(store: MemoryStore, memory: OperatorMemory) {
  return ({ taskId, userId, onEvent, redact }: MemoryContext) =>
    createMemoryManager({
      store,
      channels: { ...memory.channels, ...(userId === null ? {} : { user: userId }), task: taskId },
      onEvent,
      redact,
    });
}
