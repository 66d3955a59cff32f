// A queue-mode worker's writes about its tasks: every record the worker saves, for a task it holds with an epoch,
// goes to `agency.tasks` (and its new lifecycle lines to `agency.task_history`), fenced by that epoch.
import type { Pool } from 'pg';
import { backoffDelay } from '../../core/backoff.ts';
import { errorMessage } from '../../core/errors.ts';
import type { HistoryRecord } from '../api/worker-schemas.ts';
import { isRunning, toWorkerTask } from '../worker/task-record.ts';
import { isConnectionLost } from './connection-lost.ts';
import { writeTask } from './task-rows.ts';

/** Options of {@link createTaskMirror}. */
export type TaskMirrorOptions = {
  pool: Pool;
  now: () => number;
  /** A write was rejected: another worker took the task with a newer epoch. The worker stops working on it. */
  onStale: (taskId: string, epoch: number) => void;
  /** A write failed; one that failed because the database is unreachable is tried again until it is written. */
  onError: (taskId: string, message: string) => void;
};

/** The mirror: hold a task with its epoch, then pass every saved record to `save`. */
export type TaskMirror = {
  /** Holds a task with its epoch; `sentLines`: how many of its log lines the database has already. */
  hold(taskId: string, epoch: number, sentLines?: number): void;
  /** Mirrors a saved record when its task is held; resolves once written (or rejected as stale). */
  save(record: HistoryRecord): Promise<void>;
  /** Resolves when the held task's turn is over (idle, or a final state), or when its epoch went stale. */
  turnOver(taskId: string): Promise<HistoryRecord | undefined>;
  /** The epoch a task is held with. */
  epochOf(taskId: string): number | undefined;
};

type Held = {
  epoch: number;
  sentLines: number;
  chain: Promise<void>;
  waiters: ((record: HistoryRecord | undefined) => void)[];
};

/** Creates a worker's {@link TaskMirror}. */
export function createTaskMirror({ pool, now, onStale, onError }: TaskMirrorOptions): TaskMirror {
  const held = new Map<string, Held>();
  const release = (taskId: string, record: HistoryRecord | undefined) => {
    const task = held.get(taskId);
    if (!task) return;
    for (const waiter of task.waiters.splice(0)) waiter(record);
  };
  const write = async (task: Held, record: HistoryRecord) => {
    const fresh = record.log.slice(Math.min(task.sentLines, record.log.length));
    const written = await writeTask(pool, record.task_id, task.epoch, {
      state: record.state,
      result: toWorkerTask(record, now()),
      error: record.error,
      events: fresh,
    });
    if (!written) {
      held.delete(record.task_id);
      for (const waiter of task.waiters.splice(0)) waiter(undefined);
      onStale(record.task_id, task.epoch);
      return;
    }
    task.sentLines = record.log.length;
    if (!isRunning(record.state)) release(record.task_id, record);
    if (record.state === 'completed' || record.state === 'failed' || record.state === 'cancelled')
      held.delete(record.task_id);
  };
  // A write the database could not take because it is unreachable (down, restarting) is tried again, with a
  // growing wait, for as long as the task is held: the task's last record must reach it, or the task stays `working`.
  const persist = async (task: Held, record: HistoryRecord) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write(task, record);
      } catch (error) {
        onError(record.task_id, errorMessage(error));
        if (!isConnectionLost(error) || held.get(record.task_id) !== task) return;
        await new Promise((resolve) => setTimeout(resolve, backoffDelay(attempt, { initialMs: 200, maxMs: 5_000 })));
      }
    }
  };
  return {
    hold(taskId, epoch, sentLines = 0) {
      held.set(taskId, { epoch, sentLines, chain: Promise.resolve(), waiters: [] });
    },
    save(record) {
      const task = held.get(record.task_id);
      if (!task) return Promise.resolve();
      const snapshot = structuredClone(record);
      task.chain = task.chain.then(() => persist(task, snapshot));
      return task.chain;
    },
    turnOver(taskId) {
      const task = held.get(taskId);
      if (!task) return Promise.resolve(undefined);
      return new Promise((resolve) => task.waiters.push(resolve));
    },
    epochOf: (taskId) => held.get(taskId)?.epoch,
  };
}
