// agency/memory/redis: the Redis memory store (redis). See docs/memory.md.
export { type MemoryEmbedding } from '../../embedding.ts';
export { openRedisMemoryStore, type RedisMemoryStore, type RedisMemoryStoreOptions } from './redis-memory-store.ts';
