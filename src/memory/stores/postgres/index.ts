// agency/memory/postgres: the PostgreSQL memory store (pg). See docs/memory.md.
export { type MemoryEmbedding } from '../../embedding.ts';
export {
  openPostgresMemoryStore,
  type PostgresMemoryStore,
  type PostgresMemoryStoreOptions,
} from './postgres-memory-store.ts';
export { MIGRATIONS, SCHEMA_VERSION } from './schema.ts';
