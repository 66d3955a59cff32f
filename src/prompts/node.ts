// agency/prompts: the file-backed PromptStore (Node-only). The port, the in-memory store and the built-in prompts are
// in the root entry; the SQL stores have subpaths of their own, so importing this loads no database driver.
export { AUDIT_FILE, createFilePromptStore, type FilePromptStoreOptions } from './file/file-prompt-store.ts';
