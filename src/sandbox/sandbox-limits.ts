import { AgencyError } from '../core/errors.ts';

/**
 * Resource limits for one sandboxed command. The kernel enforces them as rlimits (set by `prlimit` inside the
 * sandbox, soft and hard alike, so the command cannot raise them), a pids and a memory cgroup where they can be
 * made, and tmpfs sizes. Every value is a positive whole number. See docs/sandbox.md, "Threat model", for what each
 * one bounds, and where it cannot be enforced (reported in the run's `warnings`).
 */
export type SandboxLimits = {
  /**
   * Processes and threads running at once (RLIMIT_NPROC, counted per sandbox in its own user namespace on Linux
   * ≥ 5.14, plus `pids.max` of a pids cgroup where agency can create one). The kernel does not apply RLIMIT_NPROC
   * to host root, so as root only the cgroup bounds it. @default 1024
   */
  processes?: number | undefined;
  /** Private writable memory of each process, in bytes (RLIMIT_DATA). Node 24 needs about 1 GiB to start. @default 4 GiB */
  memoryBytes?: number | undefined;
  /**
   * Memory of the whole sandbox at once, in bytes: every process's resident memory, the files in its `/tmp` and
   * `/dev/shm`, and the page cache it fills, counted by a memory cgroup (`memory.max`, or `memory.limit_in_bytes` on
   * cgroup v1) where one can be made. At the limit the kernel reclaims cache, then ends a process of the sandbox.
   * @default memoryBytes
   */
  totalMemoryBytes?: number | undefined;
  /** CPU time of each process, in seconds, all its threads together (RLIMIT_CPU). @default 3600 */
  cpuSeconds?: number | undefined;
  /** The largest file a process may write, in bytes (RLIMIT_FSIZE); `truncate -s` counts too. @default 1 GiB */
  fileSizeBytes?: number | undefined;
  /** Open file descriptors of each process (RLIMIT_NOFILE). @default 8192 */
  openFiles?: number | undefined;
  /** Size of each RAM-backed scratch file system, `/tmp` and `/dev/shm`, in bytes. @default 512 MiB */
  tmpBytes?: number | undefined;
  /**
   * Bytes one run may add to its writable paths (the workdir and `readWritePaths`), counted as the blocks their files
   * hold, so sparse files count what they store. A watchdog outside the sandbox measures them while the command runs
   * and stops it, as on a timeout, once it has added more. It reads the file systems' used space every 20 ms and
   * counts the paths when that may have crossed the limit (or every 250 ms), so a fast writer overshoots by what it
   * writes before the stop lands: a few MB to tens of MB. The limit is per run: runs one after another may each add
   * this much. @default 2 GiB
   */
  diskBytes?: number | undefined;
};

/** {@link SandboxLimits} with every value present. */
export type ResolvedSandboxLimits = { [K in keyof SandboxLimits]-?: number };

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** The limits a command gets when it is given none. */
export const DEFAULT_SANDBOX_LIMITS: Readonly<ResolvedSandboxLimits> = {
  processes: 1024,
  memoryBytes: 4 * GiB,
  totalMemoryBytes: 4 * GiB,
  cpuSeconds: 3600,
  fileSizeBytes: GiB,
  openFiles: 8192,
  tmpBytes: 512 * MiB,
  diskBytes: 2 * GiB,
};

// Byte limits below 1 MiB are nearly always a unit mistake (MiB meant, bytes given), and nothing can run in them.
const MINIMUM: Readonly<ResolvedSandboxLimits> = {
  processes: 1,
  memoryBytes: MiB,
  totalMemoryBytes: MiB,
  cpuSeconds: 1,
  fileSizeBytes: MiB,
  openFiles: 3,
  tmpBytes: MiB,
  diskBytes: MiB,
};

/**
 * Fills in defaults (`totalMemoryBytes` follows `memoryBytes` when not given) and validates. Throws AgencyError `invalid_argument` naming the field and the fix for an
 * unknown name, or a value that is not a whole number at or above its minimum.
 */
export function resolveSandboxLimits(limits: SandboxLimits = {}): ResolvedSandboxLimits {
  if (typeof limits !== 'object' || limits === null) {
    throw new AgencyError('invalid_argument', 'sandbox limits must be an object such as { processes: 256 }.');
  }
  const resolved = { ...DEFAULT_SANDBOX_LIMITS };
  for (const [name, value] of Object.entries(limits) as Array<[keyof SandboxLimits, unknown]>) {
    if (!Object.hasOwn(DEFAULT_SANDBOX_LIMITS, name)) {
      const known = Object.keys(DEFAULT_SANDBOX_LIMITS).join(', ');
      throw invalid(name, value, `is not a sandbox limit; use one of ${known}`);
    }
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid(name, value, 'must be a whole number');
    if (value < MINIMUM[name]) throw invalid(name, value, `must be at least ${MINIMUM[name]}`);
    resolved[name] = value;
  }
  if (limits.totalMemoryBytes === undefined) resolved.totalMemoryBytes = resolved.memoryBytes;
  return resolved;
}

/**
 * The `prlimit` options that apply `limits` to the command (soft and hard), with core dumps off: a core file of a
 * large process would fill the workdir.
 */
export function prlimitOptions(limits: ResolvedSandboxLimits): string[] {
  return [
    `--nproc=${limits.processes}`,
    `--data=${limits.memoryBytes}`,
    `--cpu=${limits.cpuSeconds}`,
    `--fsize=${limits.fileSizeBytes}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
  ];
}

function invalid(name: string, value: unknown, problem: string): AgencyError {
  return new AgencyError('invalid_argument', `sandbox limits.${name} (${String(value)}) ${problem}.`, {
    details: { field: `limits.${name}` },
  });
}
