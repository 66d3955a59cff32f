import type { WorkerTask } from '../fleet/api/worker-schemas.ts';
import type { StopReason } from '../task/contracts/state.ts';

/** Exit codes of the `agency` CLI. Documented in docs/cli.md. */
export const EXIT = {
  ok: 0,
  /** The run failed: an error inside the run, or a failed verification. */
  failed: 1,
  /** Bad usage: unknown option, missing or foreign task folder, corrupt files, unknown model spec. */
  usage: 2,
  /** The run stopped early: a budget, a STOP file, `agency stop`, Ctrl-C. */
  stopped: 3,
  /** The plan or a tool call was denied, or its approval expired. */
  denied: 4,
  /** Another run holds the task's lock. */
  locked: 5,
  /** `agency task`: no worker took the task, every one being busy (also after `--wait`), or the session's is. */
  busy: 6,
  /** The fleet failed: no worker found, or one did not answer, answered outside its API, or was lost mid-task. */
  fleet: 7,
  /** `agency eval --compare`: a case that passed no longer does, or its tokens, cost or time rose past the threshold. */
  regression: 8,
} as const;

/** The exit code for how a run ended. */
export function exitCodeFor(reason: StopReason): number {
  if (reason === 'completed') return EXIT.ok;
  if (reason === 'error' || reason === 'verify.failed') return EXIT.failed;
  if (reason === 'approval.denied' || reason === 'approval.expired') return EXIT.denied;
  return EXIT.stopped;
}

/**
 * The exit code for how a worker's task ended (`agency task`): its turn over (`idle`, the session open) or
 * `completed` is 0, `failed` 1, `cancelled` or a timeout 3.
 */
export function exitCodeForTask(task: Pick<WorkerTask, 'state' | 'error'>): number {
  if (task.state === 'idle' || task.state === 'completed') return EXIT.ok;
  if (task.state === 'cancelled' || task.error?.type === 'timeout' || task.error?.type === 'cancelled')
    return EXIT.stopped;
  return EXIT.failed;
}
