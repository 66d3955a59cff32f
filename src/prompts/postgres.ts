// agency/prompts/postgres: the PromptStore in PostgreSQL (`pg`).
export {
  createPostgresPromptStore,
  type PostgresPromptStore,
  type PostgresPromptStoreOptions,
} from './sql/postgres-prompt-store.ts';
