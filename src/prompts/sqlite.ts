// agency/prompts/sqlite: the PromptStore in a SQLite file (`node:sqlite`).
export {
  createSqlitePromptStore,
  type SqlitePromptStore,
  type SqlitePromptStoreOptions,
} from './sql/sqlite-prompt-store.ts';
