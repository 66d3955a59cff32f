// The port through which a director hands work to workers. On one machine it is discovery plus HTTP to the worker
// that takes the task; on many machines (a database URL) it is a queue. Directors see only this.
import type { TaskErrorType, WorkerTask, WorkerTaskRequest } from '../api/worker-schemas.ts';
import type { Placement } from './placement.ts';

/** A task a director has handed out: enough to find it again after a restart (keep it in `state.json`). */
export type DispatchedTask = {
  /** The worker that holds the task (its name, as its `/status` gives it) and where it answered. */
  worker: { name: string; url: string };
  task_id: string;
  session_id: string;
};

/** What a director asks for. `workdir`, when given, is where the executor works instead of a fresh session dir. */
export type DispatchRequest = WorkerTaskRequest & {
  workdir?: string;
  /** Prefer this worker (affinity: the one used before for the same workdir), if it is idle. */
  prefer?: string;
  /** How long to wait for an idle worker before failing with `agent_busy` or `no_worker`. @default 0 */
  waitMs?: number;
  /**
   * Labels the worker must have (queue mode): only a worker whose `labels:` hold all of them takes the task. The
   * one-machine dispatch refuses a task with labels (`invalid_config`): discovered workers report none.
   */
  labels?: readonly string[];
};

/** How a handed-out task ended, as the director sees it. */
export type DispatchOutcome =
  | { state: 'idle' | 'completed' | 'cancelled'; task: WorkerTask }
  | { state: 'failed'; task: WorkerTask; error: { type: TaskErrorType; message: string } }
  /** The worker stopped answering or lost the task: re-queue or report, per the director's config. */
  | { state: 'lost'; error: { type: 'worker_lost'; message: string } };

/** Hands tasks to workers and follows them. Every call may be retried after a director restart. */
export type TaskDispatch = {
  /**
   * Hands the task to an idle worker, waiting up to `waitMs` (with backoff) while every worker is busy or none is
   * found; `onWait` is told of each wait (how long, and who is busy), so a director can record it.
   */
  dispatch(
    request: DispatchRequest,
    options?: { signal?: AbortSignal; onWait?: (wait: { delayMs: number; busy: string[] }) => void },
  ): Promise<DispatchedTask>;
  /** Waits until the task leaves `queued`/`working`/`cancelling`: `idle` (a session waiting), or a final state. */
  settle(task: DispatchedTask, options?: { signal?: AbortSignal }): Promise<DispatchOutcome>;
  /** The next prompt in the task's session, on the worker that holds it. */
  continue(task: DispatchedTask, prompt: string, options?: { signal?: AbortSignal }): Promise<void>;
  end(task: DispatchedTask, options?: { signal?: AbortSignal }): Promise<void>;
  cancel(task: DispatchedTask, options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * The task a `dispatch` with `placement.session_id` (or a `continue` of `placement.continued`) became, if a worker
   * took it before the director stopped; undefined when none has it, so it is safe to hand out again. A director
   * records the placement before it dispatches and asks this after a restart (see placement.ts). A dispatch without
   * it cannot tell, and the task is handed out again.
   */
  find?(placement: Placement, options?: { recorded?: ReadonlySet<string> }): Promise<DispatchedTask | undefined>;
};
