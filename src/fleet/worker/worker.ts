import { randomUUID } from 'node:crypto';
import { AgencyError } from '../../core/errors.ts';
import { createIdGenerator } from '../../core/ids.ts';
import type { WorkerTaskRequest, HistoryRecord, WorkerTask, WorkerTaskState } from '../api/worker-schemas.ts';
import type { Executor } from '../executors/executor.ts';
import { type TaskSummary, toWorkerTask } from './task-record.ts';
import type { LiveTask, TurnContext } from './task-turn.ts';
import {
  cancelTask,
  continueTask,
  endTask,
  shutdownWorker,
  storedRecord,
  type SubmitOptions,
  submitTask,
  type WorkerState,
} from './worker-actions.ts';

/** What a worker is built from; the executor comes later, once it has passed its check (see {@link Worker.ready}). */
export type WorkerDeps = Omit<TurnContext, 'executor' | 'stopGraceMs' | 'now'> & {
  /** Put before every new task's prompt. */
  instructions: string;
  now?: () => number;
  newTaskId?: () => string;
  newSessionId?: () => string;
  /** @default 15000: 10 s between SIGTERM and SIGKILL, and some slack */
  stopGraceMs?: number;
};

export type { SubmitOptions } from './worker-actions.ts';

/** Where the worker is: `starting` until {@link Worker.ready}, `stopping` once shutdown began. */
export type WorkerPhase = 'starting' | 'ready' | 'stopping';

/** The worker's tasks: one runs at a time; finished ones are in its history. */
export type Worker = {
  readonly phase: WorkerPhase;
  /** The task whose executor runs, if any. */
  active(): LiveTask | undefined;
  /** Rewrites tasks left running by a previous process as `worker_lost`, and takes back its idle sessions. */
  recover(): Promise<{ lost: number; idle: number }>;
  /** Starts taking tasks with this executor. */
  ready(executor: Executor): void;
  /** A new task; `options` come from a queue (see {@link SubmitOptions}). */
  submit(
    request: WorkerTaskRequest,
    options?: SubmitOptions,
  ): Promise<{ task_id: string; session_id: string; status: WorkerTaskState }>;
  task(taskId: string): Promise<WorkerTask>;
  record(taskId: string): Promise<HistoryRecord>;
  cancel(taskId: string): Promise<{ task_id: string; state: WorkerTaskState; message: string }>;
  continueTask(
    taskId: string,
    prompt: string,
  ): Promise<{ task_id: string; session_id: string; state: WorkerTaskState }>;
  end(taskId: string): Promise<{ task_id: string; state: WorkerTaskState; output: string | null }>;
  list(): WorkerTask[];
  history(page: number, limit: number): { items: TaskSummary[]; total: number };
  /**
   * Stops taking tasks and drains: a running task gets `drainMs` to finish on its own, then is cancelled. Refused
   * while a task runs unless `force`. Resolves once nothing runs.
   *
   * @throws AgencyError `task_active` (→ 409 `task_in_progress`) when a task runs and `force` is not set.
   */
  shutdown(options: { drainMs: number; force: boolean }): Promise<void>;
};

/** A new worker task id (`task-…`, sortable by creation time). */
export const newWorkerTaskId = (() => {
  const ids = createIdGenerator();
  return () => `task-${ids('task').slice(5).toLowerCase()}`;
})();

/** Creates a worker's task engine (the HTTP routes are in `worker-app.ts`; its actions in `worker-actions.ts`). */
export function createWorker(deps: WorkerDeps): Worker {
  const now = deps.now ?? Date.now;
  const state: WorkerState = {
    deps,
    now,
    newTaskId: deps.newTaskId ?? newWorkerTaskId,
    newSessionId: deps.newSessionId ?? randomUUID,
    tasks: new Map(),
    phase: 'starting',
    context: undefined,
    current: undefined,
    draining: undefined,
    recovered: false,
  };
  return {
    get phase() {
      return state.phase;
    },
    active: () => state.current,
    recover: () => recover(state),
    ready(executor) {
      state.context = { ...deps, executor, now, stopGraceMs: deps.stopGraceMs ?? 15_000 };
      if (state.phase === 'starting') state.phase = 'ready';
    },
    submit: (request, options) => submitTask(state, request, options),
    task: async (taskId) => toWorkerTask(await storedRecord(state, taskId), now()),
    record: (taskId) => storedRecord(state, taskId),
    cancel: (taskId) => cancelTask(state, taskId),
    continueTask: (taskId, prompt) => continueTask(state, taskId, prompt),
    end: (taskId) => endTask(state, taskId),
    list: () =>
      [...state.tasks.values()]
        .map((task) => toWorkerTask(task.record, now()))
        .sort((a, b) => (a.task_id < b.task_id ? 1 : -1)),
    history(page, limit) {
      if (!state.recovered)
        throw new AgencyError('worker_unavailable', 'The worker is starting: its history is being read', {
          details: { state: 'starting' },
        });
      return deps.history.page(page, limit);
    },
    shutdown: (options) => shutdownWorker(state, options),
  };
}

// Rewrites the records a previous process left running as lost, and holds its idle sessions again.
async function recover(state: WorkerState): Promise<{ lost: number; idle: number }> {
  const { config, history, lifecycle } = state.deps;
  const { lost, idle } = await history.recover();
  for (const record of lost) lifecycle.warn(`task ${record.task_id} was lost with the previous worker process`);
  for (const record of idle)
    state.tasks.set(record.task_id, {
      record,
      model: config.model,
      timeoutMs: config.timeoutMs,
      env: {},
      workdir: record.workdir ?? undefined,
    });
  state.recovered = true;
  return { lost: lost.length, idle: idle.length };
}
