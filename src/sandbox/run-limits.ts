import { type DiskWatchdog, startDiskWatchdog } from './disk-watchdog.ts';
import { type CgroupParent, createRunCgroup, findCgroupParents, type RunCgroup } from './run-cgroup.ts';
import type { Sandbox, WrappedCommand } from './sandbox.ts';
import type { ResolvedSandboxLimits } from './sandbox-limits.ts';
import { unenforcedLimits } from './unenforced-limits.ts';

/**
 * A limit that stopped part of a sandboxed run: `totalMemoryBytes` when the memory cgroup's OOM killer ended a
 * process, `diskBytes` when the run added more than that to its writable paths and was stopped.
 */
export type ReachedLimit = 'totalMemoryBytes' | 'diskBytes';

/** The limits of one run that live outside the sandbox: its cgroups and its disk watchdog. */
export type RunLimits = {
  /** Limits the kernel does not enforce on this run, one sentence each. */
  warnings: string[];
  /** Moves the started process into the run's cgroups, before it is released. */
  place?: (pid: number) => Promise<void>;
  /** Aborted when the run went over a limit that is watched rather than enforced by the kernel (`diskBytes`). */
  stopped: AbortSignal;
  /** Once the command has ended: kills what is left, and says which limits the run reached. */
  finish(): Promise<ReachedLimit[]>;
  /** Removes the cgroups and stops the watchdog; safe to call more than once. */
  dispose(): Promise<void>;
};

/**
 * Sets up what bounds one sandboxed run beyond its rlimits: a pids and a memory cgroup where they can be made, and
 * a watchdog on the bytes it adds to `writable`. The unsandboxed opt-out gets none of it, and no warnings.
 */
export async function startRunLimits(
  sandbox: Sandbox,
  wrapped: WrappedCommand,
  {
    limits,
    writable,
    cgroupParents,
  }: {
    limits: ResolvedSandboxLimits;
    writable: readonly string[];
    cgroupParents: readonly CgroupParent[] | false | undefined;
  },
): Promise<RunLimits> {
  const stop = new AbortController();
  if (sandbox.name === 'none') {
    return { warnings: [], stopped: stop.signal, finish: async () => [], dispose: async () => {} };
  }
  const parents = cgroupParents === false ? [] : (cgroupParents ?? findCgroupParents());
  let cgroup: RunCgroup | undefined;
  let watchdog: DiskWatchdog | undefined;
  let reachedDisk = false;
  try {
    if (wrapped.releaseInput !== undefined && parents.length > 0) {
      cgroup = await createRunCgroup(parents, { processes: limits.processes, memoryBytes: limits.totalMemoryBytes });
    }
    // Over the disk limit: everything in the cgroups dies at once, then the run is stopped as on a timeout.
    watchdog = await startDiskWatchdog(writable, limits.diskBytes, () => {
      void cgroup?.kill();
      stop.abort();
    });
  } catch (error) {
    await cgroup?.dispose();
    throw error;
  }
  const warnings = unenforcedLimits(limits, {
    controllers: cgroup?.controllers ?? [],
    problems: cgroup?.problems ?? [],
    root: process.geteuid?.() === 0,
  });
  const stopWatchdog = async () => {
    const disk = await watchdog?.stop();
    watchdog = undefined;
    reachedDisk ||= disk?.exceeded ?? false;
  };
  return {
    warnings,
    ...(cgroup ? { place: cgroup.place } : {}),
    stopped: stop.signal,
    finish: async () => {
      const oomKills = (await cgroup?.oomKills()) ?? 0;
      await cgroup?.dispose(); // kills any straggler, so nothing writes while the output is measured and scanned
      await stopWatchdog();
      return [...(oomKills > 0 ? ['totalMemoryBytes' as const] : []), ...(reachedDisk ? ['diskBytes' as const] : [])];
    },
    dispose: async () => {
      await cgroup?.dispose();
      await stopWatchdog();
    },
  };
}
