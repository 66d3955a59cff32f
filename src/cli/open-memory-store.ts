import { createMemoryManager } from '../memory/memory-manager.ts';
import type { MemoryScope, MemoryStore } from '../memory/memory-store.ts';
import type { MemoryContext } from '../task/runner-options.ts';
import type { MemoryStoreUrl } from './memory-store-url.ts';
import type { OperatorMemory } from './operator-config.ts';

/** A store opened for a command, and how to close it. */
export type OpenedMemoryStore = {
  store: MemoryStore;
  scopes(): MemoryScope[] | Promise<MemoryScope[]>;
  close(): void | Promise<void>;
};

/** Opens the store a {@link MemoryStoreUrl} names; each store's module is loaded only when it is named. */
export async function openMemoryStoreUrl(url: MemoryStoreUrl): Promise<OpenedMemoryStore> {
  if (url.kind === 'postgres') {
    const { openPostgresMemoryStore } = await import('../memory/stores/postgres/postgres-memory-store.ts');
    const store = await openPostgresMemoryStore({ connectionString: url.url });
    return { store, scopes: () => store.scopes(), close: () => store.close() };
  }
  if (url.kind === 'redis') {
    const { openRedisMemoryStore } = await import('../memory/stores/redis/redis-memory-store.ts');
    const store = await openRedisMemoryStore({ url: url.url });
    return { store, scopes: () => store.scopes(), close: () => store.close() };
  }
  if (url.kind === 'zep') {
    const { openZepMemoryStore } = await import('../memory/stores/zep/zep-memory-store.ts');
    const store = await openZepMemoryStore({
      apiKey: process.env.ZEP_API_KEY ?? '',
      baseUrl: url.baseUrl,
      ...(url.graphPrefix === undefined ? {} : { graphPrefix: url.graphPrefix }),
    });
    return { store, scopes: () => store.scopes(), close: () => store.close() };
  }
  const { openSqliteMemoryStore } = await import('../memory/stores/sqlite/sqlite-memory-store.ts');
  const store = openSqliteMemoryStore({ path: url.path });
  return { store, scopes: () => store.scopes(), close: () => store.close() };
}

/** Opens the operator's store for a run: the runner's memory factory, and how to close the store after. */
export async function openRunMemory(
  memory: OperatorMemory,
): Promise<{ memory: ReturnType<typeof runMemory>; close(): void | Promise<void> }> {
  const opened = await openMemoryStoreUrl(memory.url);
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
