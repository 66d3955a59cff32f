// The built-in tools. See docs/tools.md.
export { type BuiltinToolLimits, type BuiltinToolsOptions, builtinTools } from './builtin-tools.ts';
export { type ExecEnvironmentOptions, type SandboxChoice } from './exec-options.ts';
export { createFileGlobTool, type FileGlobOutput, type FileGlobToolOptions } from './file-glob.ts';
export { createFsReadTool, type FsReadOutput, type FsReadToolOptions } from './fs-read.ts';
export { createFsWriteTool, type FsWriteMode, type FsWriteOutput, type FsWriteToolOptions } from './fs-write.ts';
export { createHttpFetchTool, type HttpFetchToolOptions } from './http-fetch.ts';
export { createHttpPostTool, type HttpPostToolOptions } from './http-post.ts';
export { type BinaryBodyMode, type HttpToolResponse, redactHeaders } from './http-response.ts';
export {
  createJsonValidateTool,
  type JsonValidateInput,
  type JsonValidateOutput,
  type JsonValidateToolOptions,
  type JsonValidationError,
} from './json-validate.ts';
export { createKvTool, type KvInput, type KvOutput, type KvToolOptions } from './kv.ts';
export { createMemoryKvStore, type KvKeyPage, type KvStore } from './kv-store.ts';
export {
  createLinksCheckTool,
  type LinkCheckResult,
  type LinksCheckOutput,
  type LinksCheckToolOptions,
} from './links-check.ts';
export { type NetworkToolOptions } from './network-options.ts';
export {
  createSandboxExecTool,
  type SandboxExecInput,
  type SandboxExecOutput,
  type SandboxExecToolOptions,
} from './sandbox-exec.ts';
export { createSqlTool, type SqlInput, type SqlOutput, type SqlToolOptions } from './sql.ts';
export type { SqlDatabase, SqlParams, SqlQuery, SqlQueryResult, SqlValue } from './sql-database.ts';
export { openSqliteDatabase, type SqliteDatabaseOptions } from './sqlite-database.ts';
export { openSqliteKvStore, type SqliteKvStoreOptions } from './sqlite-kv-store.ts';
export { TASK_WRITABLE_PATHS, type TaskToolsOptions, taskTools } from './task-tools.ts';
export { createTestRunnerTool, type TestRunnerOutput, type TestRunnerToolOptions } from './test-runner.ts';
export { parseTestCounts, type TestCounts } from './test-summary.ts';
