// The path-scope guard: every file a tool touches on the model's behalf goes through here. See docs/paths.md.
export { type GlobInScopeOptions, type GlobInScopeResult, globInScope } from './path-glob.ts';
export {
  DEFAULT_MAX_FILE_BYTES,
  type ReadFileInScopeOptions,
  readFileInScope,
  type WriteFileInScopeOptions,
  writeFileAtomicInScope,
} from './path-io.ts';
export { MAX_PATH_BYTES, MAX_SEGMENT_BYTES } from './path-lexical.ts';
export { openInScope } from './path-open.ts';
export type { PathErrorCode } from './path-refusal.ts';
export { type ResolvedPath, resolveInScope, type ScopeMode } from './path-resolve.ts';
export { isInsideRoot, type PathRoot } from './path-roots.ts';
