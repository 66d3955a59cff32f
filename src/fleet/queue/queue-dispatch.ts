// The `TaskDispatch` of a fleet across hosts: tasks go through pg-boss to whichever idle worker takes them first;
// directors follow the task's row, and a session's next turn goes to the worker that holds it.
import { randomUUID } from 'node:crypto';
import { AgencyError } from '../../core/errors.ts';
import type { ExecutorKind, WorkerTask } from '../api/worker-schemas.ts';
import { findPlaced } from '../directors/placement.ts';
import type { DispatchOutcome, DispatchedTask, TaskDispatch } from '../directors/task-dispatch.ts';
import { createWorkerClient, type WorkerClient } from '../worker-client.ts';
import { newWorkerTaskId } from '../worker/worker.ts';
import { isConnectionLost } from './connection-lost.ts';
import type { FleetDatabase } from './database.ts';
import { type TaskJob, taskJobSchema } from './job.ts';
import { failLostTasks } from './lost-tasks.ts';
import { findWorker } from './registry.ts';
import { cancelQueuedTask, insertTask, readTask, sessionTask, type TaskRow } from './task-rows.ts';
import { createTaskWatch } from './task-watch.ts';

/** Options of {@link createQueueDispatch}. */
export type QueueDispatchOptions = {
  /** An open (migrated) fleet database. */
  db: FleetDatabase;
  /** The executor kind whose queue tasks go to. @default 'builtin' */
  executor?: ExecutorKind;
  /** Labels every task requires of its worker, besides a request's own `labels`. @default [] */
  labels?: readonly string[];
  /**
   * Run a task again on another worker when its worker is lost mid-run (for idempotent tasks); otherwise it ends
   * `failed` with `worker_lost`. @default false
   */
  rerunOnLoss?: boolean;
  /** How often a followed task's row is read besides its notifications. @default 1000 */
  pollMs?: number;
  /**
   * `dispatch` resolves once a worker took the task, naming that worker, as the port promises; a task no worker takes
   * within `waitMs` (at least `takeGraceMs`) is cancelled, and the dispatch fails with `agent_busy`. With false it
   * resolves once the task is queued, naming the queue (`agency task`, which waits for the task anyway).
   * @default true
   */
  untilTaken?: boolean;
  /** The least time a worker is given to take a task, when `untilTaken`. @default 10000 */
  takeGraceMs?: number;
  clientFor?: (url: string) => WorkerClient;
};

/** A {@link TaskDispatch} with its LISTEN connection, to close when done. */
export type QueueDispatch = TaskDispatch & { close(): Promise<void> };

/**
 * A `TaskDispatch` over the fleet's database. `dispatch` inserts the task's row (`queued`) and sends its job
 * (singletonKey = task id, so a task is never queued twice) without waiting for a worker: `prefer` and `waitMs` do
 * not apply, and the returned `worker` is the queue's (`{name: "queue", url: "queue:<queue>"}`) until a worker
 * takes it. `settle` follows the row, failing it `worker_lost` once its worker is lost with no job behind the task
 * ({@link failLostTasks}); `continue`, `end` and `cancel` go to the worker the row names, by its URL in
 * the registry, and fail with `worker_lost` when that worker stopped or its heartbeats stopped. `find` looks a
 * placement up by its session in the task rows (a next turn, on the worker that holds the task), so a director
 * restarted between a dispatch and its record follows the task instead of queueing it again.
 */
export function createQueueDispatch({
  db,
  executor = 'builtin',
  labels: required = [],
  rerunOnLoss = false,
  pollMs = 1_000,
  clientFor = (url) => createWorkerClient(url),
  untilTaken = true,
  takeGraceMs = 10_000,
}: QueueDispatchOptions): QueueDispatch {
  const watch = createTaskWatch(db.pool, { pollMs });
  const holder = async (task: DispatchedTask) => clientFor(await holderUrl(db, task.task_id));
  const call = (signal?: AbortSignal) => (signal ? { signal } : {});
  return {
    async dispatch({ prefer: _prefer, waitMs = 0, labels = [], ...request }, { signal } = {}) {
      const job: TaskJob = taskJobSchema.parse({
        task_id: newWorkerTaskId(),
        executor,
        request: { ...request, session_id: request.session_id ?? randomUUID() },
        rerun_on_loss: rerunOnLoss,
      });
      await insertTask(db.pool, {
        id: job.task_id,
        executor,
        request: job.request,
        sessionId: job.request.session_id,
        rerunOnLoss,
      });
      // One queue per executor and label set, created on the first send; a worker works each whose labels it has.
      // The row goes first (a director that dies here finds it by its session and withdraws it); a send that fails
      // withdraws it at once, so no row waits for a job that does not exist.
      let queue: string;
      try {
        queue = await db.taskQueue(executor, [...required, ...labels]);
        await db.boss.send(queue, job, { singletonKey: job.task_id });
      } catch (error) {
        await cancelQueuedTask(db.pool, job.task_id).catch(() => undefined);
        throw error;
      }
      const queued = {
        worker: { name: 'queue', url: `queue:${queue}` },
        task_id: job.task_id,
        session_id: job.request.session_id,
      };
      if (!untilTaken) return queued;
      const worker = await takenBy(db, watch, job.task_id, Math.max(waitMs, takeGraceMs), signal);
      return { ...queued, worker };
    },
    async settle(task, { signal } = {}) {
      const row = await watch.until(task.task_id, (row) => !RUNNING.has(row.state), signal, lostSweep(db, pollMs));
      return outcomeOf(row);
    },
    async continue(task, prompt, { signal } = {}) {
      await (await holder(task)).continue(task.task_id, prompt, call(signal));
    },
    async end(task, { signal } = {}) {
      await (await holder(task)).end(task.task_id, call(signal));
    },
    async cancel(task, { signal } = {}) {
      if (await cancelQueuedTask(db.pool, task.task_id)) return;
      await (await holder(task)).cancel(task.task_id, call(signal));
    },
    async find(placement, { recorded = new Set<string>() } = {}) {
      // A next turn went to the worker holding the task, over HTTP: ask it, as on one machine.
      if (placement.continued) return findPlaced({ discover: async () => [], clientFor }, placement, recorded);
      const row = await sessionTask(db.pool, placement.session_id, recorded);
      if (!row || (row.worker === null && !RUNNING.has(row.state))) return undefined;
      const worker = await takenBy(db, watch, row.id, takeGraceMs, undefined);
      return { worker, task_id: row.id, session_id: placement.session_id };
    },
    close: () => watch.close(),
  };
}

const RUNNING = new Set(['queued', 'working', 'cancelling']);

// While a task is followed, its turn is failed `worker_lost` once its worker is lost with no job behind it (a later
// turn), looked for at most once every `pollMs`: a fleet whose every worker is gone still settles it.
function lostSweep(db: FleetDatabase, pollMs: number): (row: TaskRow) => Promise<void> {
  let swept = 0;
  return async (row) => {
    if (row.state === 'queued' || Date.now() - swept < pollMs) return;
    swept = Date.now();
    await failLostTasks(db.pool, { taskId: row.id }).catch((error: unknown) => {
      if (!isConnectionLost(error)) throw error;
    });
  };
}

// The worker that took a task, by its name and registry URL; a task none took within `waitMs` is cancelled
// (`agent_busy`), unless a worker took it meanwhile.
async function takenBy(
  db: FleetDatabase,
  watch: ReturnType<typeof createTaskWatch>,
  taskId: string,
  waitMs: number,
  signal: AbortSignal | undefined,
): Promise<{ name: string; url: string }> {
  const timeout = AbortSignal.timeout(waitMs);
  const wait = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    await watch.until(taskId, (row) => row.worker !== null || !RUNNING.has(row.state), wait);
  } catch (error) {
    if (!AgencyError.hasCode(error, 'aborted')) throw error;
    if (await cancelQueuedTask(db.pool, taskId)) {
      if (signal?.aborted) throw error;
      throw new AgencyError(
        'agent_busy',
        `No worker took ${taskId} within ${waitMs / 1_000} s; it was withdrawn from the queue`,
        { details: { task_id: taskId } },
      );
    }
    // A worker took it just then: go on with it.
  }
  const row = await readTask(db.pool, taskId);
  if (!row?.worker)
    throw new AgencyError('internal', `task ${taskId} ended ${row?.state ?? 'gone'} before a worker took it`);
  return { name: row.worker, url: await holderUrl(db, taskId) };
}

/**
 * The URL of the worker holding a task, from the registry.
 * @throws AgencyError `task_not_found` (no row), `worker_lost` (the worker stopped, or its heartbeats did)
 */
export async function holderUrl(db: FleetDatabase, taskId: string): Promise<string> {
  const row = await readTask(db.pool, taskId);
  if (!row) throw new AgencyError('task_not_found', `Task ${taskId} not found in the fleet database`);
  if (!row.worker)
    throw new AgencyError('task_active', `Task ${taskId} is still queued: no worker holds it yet`, {
      details: { task_id: taskId },
    });
  const worker = await findWorker(db.pool, row.worker);
  if (!worker || worker.health === 'lost' || worker.health === 'stopped')
    throw new AgencyError(
      'worker_lost',
      `Task ${taskId} is held by worker ${row.worker}, which is ${worker ? worker.health : 'not registered'}` +
        (worker ? ` (last heartbeat ${worker.last_heartbeat})` : '') +
        '; start a new task (with its session_id to go on from there)',
      { details: { task_id: taskId, worker: row.worker } },
    );
  return worker.url;
}

/** How a settled row ended, as a director sees it. A task failed with `worker_lost` is `lost`. */
export function outcomeOf(row: TaskRow): DispatchOutcome {
  const task = row.result ?? taskOfRow(row);
  const error = row.error ?? task.error;
  if (row.state === 'failed' && error?.type === 'worker_lost')
    return { state: 'lost', error: { type: 'worker_lost', message: error.message } };
  if (row.state === 'failed')
    return {
      state: 'failed',
      task: { ...task, state: 'failed' },
      error: (error as WorkerTask['error']) ?? { type: 'internal', message: 'failed without a reason' },
    };
  if (row.state === 'idle' || row.state === 'completed' || row.state === 'cancelled')
    return { state: row.state, task: { ...task, state: row.state } };
  throw new AgencyError('internal', `task ${row.id} settled in state ${row.state}`);
}

// A task that never ran on a worker (cancelled while queued, failed as lost) has no result: its row stands for it.
function taskOfRow(row: TaskRow): WorkerTask {
  return {
    task_id: row.id,
    state: row.state,
    executor: row.executor as ExecutorKind,
    exit_code: null,
    started_at: null,
    completed_at: null,
    duration_seconds: null,
    output: null,
    error: (row.error as WorkerTask['error']) ?? null,
    session_id: row.session_id,
    token_usage: null,
    cost_usd: null,
    turns: 1,
  };
}
