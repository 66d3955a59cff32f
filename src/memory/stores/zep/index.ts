// agency/memory/zep: the Zep memory store (@getzep/zep-cloud). See docs/memory.md.
export { ZEP_EPISODE_DATA_LIMIT } from './zep-episodes.ts';
export { openZepMemoryStore, type ZepMemoryStore, type ZepMemoryStoreOptions } from './zep-memory-store.ts';
