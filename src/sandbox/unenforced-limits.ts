import type { CgroupController } from './run-cgroup.ts';
import type { ResolvedSandboxLimits } from './sandbox-limits.ts';

const FIX =
  'run agency as an unprivileged user, or inside a cgroup it can write (see docs/sandbox.md, "Cgroups and warnings")';

/**
 * The sentences a run's `warnings` carry for limits the kernel does not enforce on this host: `processes` when
 * agency runs as root (which RLIMIT_NPROC does not bind) without a pids cgroup, and `totalMemoryBytes` without a
 * memory cgroup. `problems` says why a cgroup could not be made, when one was tried.
 */
export function unenforcedLimits(
  limits: ResolvedSandboxLimits,
  {
    controllers,
    problems,
    root,
  }: { controllers: readonly CgroupController[]; problems: readonly string[]; root: boolean },
): string[] {
  const why = problems.length > 0 ? ` (${problems.join('; ')})` : '';
  const warnings: string[] = [];
  if (root && !controllers.includes('pids')) {
    warnings.push(
      `limits.processes (${limits.processes}) is not enforced: agency runs as root, which RLIMIT_NPROC does not ` +
        `bind, and no pids cgroup could be made here${why}, so a fork bomb runs until the timeout or an outer ` +
        `limit stops it; ${FIX}`,
    );
  }
  if (!controllers.includes('memory')) {
    warnings.push(
      `limits.totalMemoryBytes (${limits.totalMemoryBytes}) is not enforced: no memory cgroup could be made ` +
        `here${why}, so each process may use memoryBytes (${limits.memoryBytes}) and all of them together more; ` +
        FIX,
    );
  }
  return warnings;
}
