// agency/memory/sqlite: the SQLite memory store (node:sqlite). See docs/memory.md.
export { type MemoryEmbedding } from '../../embedding.ts';
export { MIGRATIONS, SCHEMA_VERSION } from './schema.ts';
export { openSqliteMemoryStore, type SqliteMemoryStore, type SqliteMemoryStoreOptions } from './sqlite-memory-store.ts';
