// agency/tools: the built-in tools and the guards they run behind, Node-only. See docs/tools.md, docs/paths.md and
// docs/network.md.

// built-in tools
export { type BuiltinToolLimits, type BuiltinToolsOptions, builtinTools } from './builtin/builtin-tools.ts';
export type { ExecEnvironmentOptions, SandboxChoice } from './builtin/exec-options.ts';
export { createFileGlobTool, type FileGlobOutput, type FileGlobToolOptions } from './builtin/file-glob.ts';
export { createFsReadTool, type FsReadOutput, type FsReadToolOptions } from './builtin/fs-read.ts';
export {
  createFsWriteTool,
  type FsWriteMode,
  type FsWriteOutput,
  type FsWriteToolOptions,
} from './builtin/fs-write.ts';
export { createHttpFetchTool, type HttpFetchToolOptions } from './builtin/http-fetch.ts';
export { createHttpPostTool, type HttpPostToolOptions } from './builtin/http-post.ts';
export type { BinaryBodyMode, HttpToolResponse } from './builtin/http-response.ts';
export {
  createJsonValidateTool,
  type JsonValidateInput,
  type JsonValidateOutput,
  type JsonValidateToolOptions,
  type JsonValidationError,
} from './builtin/json-validate.ts';
export { createKvTool, type KvInput, type KvOutput, type KvToolOptions } from './builtin/kv.ts';
export { createMemoryKvStore, type KvKeyPage, type KvStore } from './builtin/kv-store.ts';
export {
  createLinksCheckTool,
  type LinkCheckResult,
  type LinksCheckOutput,
  type LinksCheckToolOptions,
} from './builtin/links-check.ts';
export type { NetworkToolOptions } from './builtin/network-options.ts';
export {
  createSandboxExecTool,
  type SandboxExecInput,
  type SandboxExecOutput,
  type SandboxExecToolOptions,
} from './builtin/sandbox-exec.ts';
export { createSqlTool, type SqlInput, type SqlOutput, type SqlToolOptions } from './builtin/sql.ts';
export type { SqlDatabase, SqlParams, SqlQuery, SqlQueryResult, SqlValue } from './builtin/sql-database.ts';
export { openSqliteDatabase, type SqliteDatabaseOptions } from './builtin/sqlite-database.ts';
export { openSqliteKvStore, type SqliteKvStoreOptions } from './builtin/sqlite-kv-store.ts';
export { TASK_WRITABLE_PATHS, type TaskToolsOptions, taskTools } from './builtin/task-tools.ts';
export { createTestRunnerTool, type TestRunnerOutput, type TestRunnerToolOptions } from './builtin/test-runner.ts';

// the path guard
export { type GlobInScopeOptions, type GlobInScopeResult, globInScope } from './guards/path-glob.ts';
export {
  DEFAULT_MAX_FILE_BYTES,
  type ReadFileInScopeOptions,
  readFileInScope,
  type WriteFileInScopeOptions,
  writeFileAtomicInScope,
} from './guards/path-io.ts';
export { MAX_PATH_BYTES, MAX_SEGMENT_BYTES } from './guards/path-lexical.ts';
export { openInScope } from './guards/path-open.ts';
export type { PathErrorCode } from './guards/path-refusal.ts';
export { type ResolvedPath, resolveInScope, type ScopeMode } from './guards/path-resolve.ts';
export { isInsideRoot, type PathRoot } from './guards/path-roots.ts';

// the network guard
export type { AddressClass, AddressReason, EmbeddingKind } from './guards/network-address.ts';
export { classifyAddress } from './guards/network-address.ts';
export type { AllowEntry, Allowlist } from './guards/network-allowlist.ts';
export { parseAllowlist } from './guards/network-allowlist.ts';
export type { GuardedFetchOptions, GuardedResponse, HttpMethod } from './guards/network-fetch.ts';
export { guardedFetch } from './guards/network-fetch.ts';
export type { ParsedIp } from './guards/network-ip.ts';
export { parseIp } from './guards/network-ip.ts';
export type { NetworkPolicy } from './guards/network-policy.ts';
export { NETWORK_DEFAULTS } from './guards/network-policy.ts';
export type { NetworkLookup, ResolvedAddress } from './guards/network-resolve.ts';
export { systemLookup } from './guards/network-resolve.ts';
export type { UrlTarget } from './guards/network-url.ts';
export { checkUrl } from './guards/network-url.ts';

// per-tool credentials
export { toolCredentials, wrapToolWithCredentials } from './credential-tool.ts';
