import { realpathSync } from 'node:fs';
import { relative } from 'node:path';
import { AgencyError } from '../../core/errors.ts';
import { createBwrapSandbox } from '../../sandbox/bwrap-sandbox.ts';
import type { ReachedLimit } from '../../sandbox/run-limits.ts';
import type { RunSandboxedOptions, RunSandboxedResult } from '../../sandbox/run-sandboxed.ts';
import { type ResolvedSandboxLimits, resolveSandboxLimits, type SandboxLimits } from '../../sandbox/sandbox-limits.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import type { QuarantinedFile } from '../../sandbox/scan-output.ts';
import { createUnsandboxed, type SandboxLogger } from '../../sandbox/unsandboxed.ts';

/**
 * Where commands run: `'bwrap'` (bubblewrap, fails closed when it cannot run), `'none'` (the explicit, loudly logged
 * opt-out that runs commands on the host), or a {@link Sandbox} you built.
 */
export type SandboxChoice = 'bwrap' | 'none' | Sandbox;

/** What the harness decides about a command's environment. The model never chooses any of it. */
export type ExecEnvironmentOptions = {
  /** @default 'bwrap' */
  sandbox?: SandboxChoice;
  /** The working directory and the only writable one: an absolute, existing directory. */
  workdir: string;
  /** Added to the command's environment over `HOME=<workdir>`, `LANG=C.UTF-8`, `TMPDIR=/tmp`. Nothing is inherited. */
  env?: Readonly<Record<string, string>>;
  /** Host paths visible read-only, e.g. a toolchain outside `/usr`. @default [] */
  readOnlyPaths?: readonly string[];
  /** More writable host paths. @default [] */
  readWritePaths?: readonly string[];
  /** Share the host network with the command; the network guard does not apply inside. @default false */
  allowNetwork?: boolean;
  /** Process, memory, CPU, file-size and scratch-space limits for each run. @default DEFAULT_SANDBOX_LIMITS */
  limits?: SandboxLimits;
  /** Receives the warning `sandbox: 'none'` logs on every run. @default console.warn */
  logger?: SandboxLogger;
};

/** Turns a {@link SandboxChoice} into a sandbox. Create it once and share it: the bwrap probe is cached per object. */
export function resolveSandbox(choice: SandboxChoice = 'bwrap', logger?: SandboxLogger): Sandbox {
  if (choice === 'bwrap') return createBwrapSandbox();
  if (choice === 'none') return createUnsandboxed(logger ? { logger } : {});
  if (typeof choice === 'object' && choice !== null && typeof choice.wrap === 'function') return choice;
  throw new AgencyError('invalid_argument', `sandbox must be 'bwrap', 'none' or a Sandbox, got ${String(choice)}`, {
    details: { field: 'sandbox' },
  });
}

/** The part of {@link RunSandboxedOptions} that {@link ExecEnvironmentOptions} decides. */
export type RunEnvironment = Pick<
  RunSandboxedOptions,
  'workdir' | 'env' | 'readOnlyPaths' | 'readWritePaths' | 'allowNetwork' | 'limits'
>;

/** The {@link RunEnvironment} of a tool's options, with the environment every command gets. */
export function runEnvironment(options: ExecEnvironmentOptions): RunEnvironment {
  const { workdir, env = {}, readOnlyPaths = [], readWritePaths = [], allowNetwork = false, limits } = options;
  return {
    workdir,
    env: { HOME: workdir, LANG: 'C.UTF-8', TMPDIR: '/tmp', ...env },
    readOnlyPaths,
    readWritePaths,
    allowNetwork,
    ...(limits === undefined ? {} : { limits }),
  };
}

/** What {@link runReport} adds to an exec tool's result, each field only when there is something to say. */
export type RunReport = {
  /** What the post-run scan stripped or removed; paths relative to the working directory. */
  quarantined?: QuarantinedFile[];
  /** There were too many files to check them all. */
  scan_incomplete?: boolean;
  /** Limits that stopped the command or some of its processes, one sentence each. */
  limits_reached?: string[];
  /** Limits this host did not enforce on the run, one sentence each (see `RunSandboxedResult.warnings`). */
  warnings?: string[];
};

/**
 * What a run did beyond its output, for a tool result, so the model and the journal see it: files the scan
 * stripped or removed, limits reached, limits not enforced. Paths are relative to the command's working directory,
 * as the command itself names them: the model is not told where on the host its workdir lies.
 */
export function runReport(
  result: Pick<RunSandboxedResult, 'quarantined' | 'scanIncomplete' | 'limitsReached' | 'warnings'>,
  { workdir, limits }: Pick<RunSandboxedOptions, 'workdir' | 'limits'>,
): RunReport {
  const root = realpathOrSelf(workdir);
  const resolved = resolveSandboxLimits(limits);
  return {
    ...(result.quarantined.length > 0
      ? { quarantined: result.quarantined.map((file) => ({ ...file, path: relative(root, file.path) })) }
      : {}),
    ...(result.scanIncomplete ? { scan_incomplete: true } : {}),
    ...(result.limitsReached.length > 0
      ? { limits_reached: result.limitsReached.map((limit) => REACHED[limit](resolved)) }
      : {}),
    ...(result.warnings.length > 0 ? { warnings: result.warnings } : {}),
  };
}

const REACHED: Record<ReachedLimit, (limits: ResolvedSandboxLimits) => string> = {
  totalMemoryBytes: (limits) =>
    `memory: the sandbox's processes together reached totalMemoryBytes (${limits.totalMemoryBytes} bytes), and ` +
    'the kernel ended at least one of them',
  diskBytes: (limits) =>
    `disk: the command added more than diskBytes (${limits.diskBytes} bytes) to its writable folders and was ` +
    'stopped; delete what it does not need, or write less',
};

// The scan reports real paths; a workdir given through a symlink is compared by its real path too.
function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
