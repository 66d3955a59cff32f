import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { abortedError } from '../core/clock.ts';
import { errnoCode } from '../core/errno.ts';
import { AgencyError } from '../core/errors.ts';
import { checkSandbox } from './check-sandbox.ts';
import type { CgroupParent } from './run-cgroup.ts';
import { type ReachedLimit, type RunLimits, startRunLimits } from './run-limits.ts';
import type { Sandbox, SandboxFile, WrapOptions, WrappedCommand } from './sandbox.ts';
import { resolveSandboxLimits } from './sandbox-limits.ts';
import { bwrapMissingError } from './sandbox-unavailable.ts';
import { type QuarantinedFile, scanSandboxOutput } from './scan-output.ts';
import { type CaptureResult, spawnCapture } from './spawn-capture.ts';
import { stageFiles } from './stage-files.ts';

/** Options for {@link runSandboxed}: what the command may touch, plus limits. */
export type RunSandboxedOptions = Omit<WrapOptions, 'fileMounts'> & {
  /** Wall-clock limit; on expiry the process group is killed and `timedOut` is true. @default 60_000 */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL on timeout or abort. @default 2_000 */
  killGraceMs?: number;
  /** Bytes of stdout kept; the rest is read and dropped. @default 1_048_576 */
  stdoutLimitBytes?: number;
  /** Bytes of stderr kept; the rest is read and dropped. @default 1_048_576 */
  stderrLimitBytes?: number;
  /** Aborting kills the process group and rejects with AgencyError `aborted` once it is gone. */
  signal?: AbortSignal;
  /** Written to the command's stdin, which is then closed. Without it stdin is empty. */
  stdin?: string | Uint8Array | undefined;
  /** Files such as credentials, bound read-only into the sandbox for this run only and deleted after. @default [] */
  files?: readonly SandboxFile[];
  /**
   * Sees every chunk of the command's output as it arrives, before the caps apply, so a caller can follow a long
   * run (and keep what it printed when it is aborted, which rejects). Must not throw.
   */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
};

/** What a sandboxed command did. Output is decoded as UTF-8; an abort rejects instead. */
export type RunSandboxedResult = Omit<CaptureResult, 'aborted'> & {
  /**
   * Setuid/setgid files, FIFOs, sockets and device nodes the command left in the writable paths, and what was done
   * to each (see {@link scanSandboxOutput}). Always empty for the unsandboxed opt-out, which is not scanned.
   */
  quarantined: QuarantinedFile[];
  /** The scan of the writable paths stopped early (too many entries), so some files were not checked. */
  scanIncomplete: boolean;
  /**
   * Limits the run reached: `totalMemoryBytes` when the memory cgroup's OOM killer ended at least one of its
   * processes, `diskBytes` when it added more than that to its writable paths (the run is stopped as on a timeout,
   * or, had it already ended, the files stay). Empty otherwise (and always for the unsandboxed opt-out).
   */
  limitsReached: ReachedLimit[];
  /**
   * Limits the kernel did not enforce on this run, one sentence each: `processes` when agency runs as root without a
   * pids cgroup, `totalMemoryBytes` without a memory cgroup. Empty when every limit held, and for the unsandboxed
   * opt-out, which enforces none and logs its own warning.
   */
  warnings: string[];
};

/** Dependencies for {@link runSandboxed}. */
export type RunSandboxedDeps = {
  /** A monotonic clock in milliseconds. @default performance.now */
  now?: () => number;
  /** Where files are staged for the run, and where the first run's probe makes its scratch dir. @default os.tmpdir() */
  tmpDir?: string;
  /**
   * Where each run gets its cgroups, capping its processes (`pids.max`) and its total memory (`memory.max`), or
   * `false` for none.
   * @default findCgroupParents(): agency's own writable cgroup v1 pids and memory cgroups, or a delegated v2 parent
   */
  cgroupParents?: readonly CgroupParent[] | false;
};

/**
 * Runs `command` (no shell) inside `sandbox`, with capped output, resource limits and a timeout, and never leaves its
 * processes behind. It first checks, once per sandbox, that the sandbox works; if not it throws AgencyError
 * `sandbox_unavailable` and runs nothing. A non-zero exit or a timeout is a result, not an error. A sandboxed run
 * gets pids and memory cgroups where they can be made and a watchdog on the disk it adds; the result says which
 * limits it reached (`limitsReached`) and which this host could not enforce (`warnings`). After it, the writable
 * paths are scanned, and what the host must not inherit is made safe and reported.
 *
 * @example
 * const result = await runSandboxed(createBwrapSandbox(), ['node', 'build.js'], {
 *   workdir, readOnlyPaths: ['/opt/node'], timeoutMs: 30_000, signal,
 *   env: { HOME: workdir }, files: [{ path: '/run/secrets/npm-token', content: token }],
 * });
 */
export async function runSandboxed(
  sandbox: Sandbox,
  command: readonly string[],
  options: RunSandboxedOptions,
  { now = () => performance.now(), tmpDir = tmpdir(), cgroupParents }: RunSandboxedDeps = {},
): Promise<RunSandboxedResult> {
  const {
    timeoutMs = 60_000,
    killGraceMs = 2_000,
    stdoutLimitBytes = 1_048_576,
    stderrLimitBytes = 1_048_576,
  } = options;
  assertLimits({ timeoutMs, killGraceMs, stdoutLimitBytes, stderrLimitBytes });
  const limits = resolveSandboxLimits(options.limits);
  const { signal } = options;
  if (signal?.aborted) throw abortedError(signal);
  const status = await checkSandbox(sandbox, { tmpDir });
  if (!status.ok) throw status.error;
  if (signal?.aborted) throw abortedError(signal);

  const staged = await stageFiles(options.files ?? [], tmpDir);
  let guard: RunLimits | undefined;
  try {
    const wrapped = sandbox.wrap(command, { ...wrapOptions(options), fileMounts: staged.mounts });
    guard = await startRunLimits(sandbox, wrapped, { limits, writable: writablePaths(options), cgroupParents });
    const { aborted, ...result } = await spawnCapture(wrapped, {
      stdin: options.stdin,
      timeoutMs,
      killGraceMs,
      stdoutLimitBytes,
      stderrLimitBytes,
      now,
      signal: signal ? AbortSignal.any([signal, guard.stopped]) : guard.stopped,
      onOutput: options.onOutput,
      ...(guard.place ? { place: guard.place } : {}),
    }).catch((error: unknown) => {
      throw startError(sandbox, wrapped, error);
    });
    const limitsReached = await guard.finish();
    const scan = await scanWritable(sandbox, options);
    if (aborted && signal?.aborted) throw abortedError(signal);
    const { quarantined, incomplete: scanIncomplete } = scan;
    return { ...result, quarantined, scanIncomplete, limitsReached, warnings: guard.warnings };
  } finally {
    await guard?.dispose();
    await staged.dispose();
  }
}

function wrapOptions(options: RunSandboxedOptions): WrapOptions {
  const { workdir, readOnlyPaths, readWritePaths, allowNetwork, env, limits } = options;
  return { workdir, readOnlyPaths, readWritePaths, allowNetwork, env, limits };
}

// The opt-out is not scanned: its command already runs with agency's own access, so what it leaves gains nothing.
async function scanWritable(sandbox: Sandbox, options: RunSandboxedOptions) {
  if (sandbox.name === 'none') return { quarantined: [], incomplete: false };
  return scanSandboxOutput(writablePaths(options));
}

function writablePaths(options: RunSandboxedOptions): string[] {
  return [options.workdir, ...(options.readWritePaths ?? [])].map((path) => realpathSync(path));
}

function startError(sandbox: Sandbox, wrapped: WrappedCommand, error: unknown): AgencyError {
  if (sandbox.name === 'bwrap' && errnoCode(error) === 'ENOENT') return bwrapMissingError(wrapped.file, error);
  const reason = error instanceof Error ? error.message : String(error);
  return new AgencyError('sandbox_failed', `Could not start ${JSON.stringify(wrapped.file)}: ${reason}`, {
    cause: error,
    details: { sandbox: sandbox.name },
  });
}

function assertLimits(limits: Record<string, number>): void {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 0 || (name === 'timeoutMs' && value === 0)) {
      throw new AgencyError('invalid_argument', `runSandboxed ${name} must be a positive whole number, got ${value}.`);
    }
  }
}
