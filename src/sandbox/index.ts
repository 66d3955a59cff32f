// agency/sandbox: run commands under bubblewrap, or unsandboxed when an operator says so; Node-only. See docs/sandbox.md.
export { type BwrapSandboxOptions, createBwrapSandbox } from './bwrap-sandbox.ts';
export { MIN_BWRAP_VERSION } from './bwrap-version.ts';
export { type CheckSandboxOptions, checkSandbox, type SandboxStatus } from './check-sandbox.ts';
export { detectProcMasks, PROC_MASKED_DIRS, PROC_MASKED_FILES, PROC_READ_ONLY, type ProcMask } from './proc-masks.ts';
export { type ReachedLimit } from './run-limits.ts';
export {
  type RunSandboxedDeps,
  type RunSandboxedOptions,
  type RunSandboxedResult,
  runSandboxed,
} from './run-sandboxed.ts';
export {
  DEFAULT_SANDBOX_PATH,
  type FileMount,
  type Sandbox,
  type SandboxFile,
  type SandboxName,
  type WrapOptions,
  type WrappedCommand,
} from './sandbox.ts';
export { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './sandbox-limits.ts';
export { type QuarantinedFile, type SandboxOutputScan, type ScanOptions, scanSandboxOutput } from './scan-output.ts';
export { buildSeccompFilter, SECCOMP_RULES, type SeccompRule } from './seccomp-filter.ts';
export { DEFAULT_ETC_PATHS, detectSystemMounts, type HostEntry, type SystemMount } from './system-mounts.ts';
export { createUnsandboxed, type SandboxLogger, type UnsandboxedOptions } from './unsandboxed.ts';
