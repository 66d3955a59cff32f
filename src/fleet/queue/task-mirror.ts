// A queue-mode worker's writes about its tasks: every record the worker saves, for a task it holds with an epoch,
// goes to `agency.tasks` (and its new lifecycle lines to `agency.task_history`), fenced by that epoch; so does each
// event its executor reports while the task runs (`append`), at once, for the server's live timeline.
import type { Pool } from 'pg';
import { backoffDelay } from '../../core/backoff.ts';
import { errorMessage } from '../../core/errors.ts';
import type { HistoryRecord } from '../api/worker-schemas.ts';
import { isRunning, toWorkerTask } from '../worker/task-record.ts';
import { isConnectionLost } from './connection-lost.ts';
import { appendTaskEvents, boundEvent, limitMarker, TASK_EVENTS_LIMIT } from './task-events.ts';
import { type TaskEvent, writeTask } from './task-rows.ts';

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
  /**
   * Holds a task with its epoch; `sentLines`: how many of its log lines the database has already, `events`: how many
   * events this epoch wrote in all.
   */
  hold(taskId: string, epoch: number, sent?: { sentLines: number; events: number }): void;
  /** Mirrors a saved record when its task is held; resolves once written (or rejected as stale). */
  save(record: HistoryRecord): Promise<void>;
  /**
   * Mirrors a line the worker just added to a held task's record (an executor's event, with its `type`), without
   * waiting for the record's next save; in order with the saves.
   */
  append(taskId: string, line: TaskEvent): Promise<void>;
  /** Resolves when the held task's turn is over (idle, or a final state), or when its epoch went stale. */
  turnOver(taskId: string): Promise<HistoryRecord | undefined>;
  /** The epoch a task is held with. */
  epochOf(taskId: string): number | undefined;
};

type Held = {
  epoch: number;
  sentLines: number;
  /** The events this epoch wrote, toward {@link TASK_EVENTS_LIMIT}. */
  events: number;
  /** The state of the last record written, so a turn's end is written once. */
  state: string | undefined;
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
  const stale = (taskId: string, task: Held) => {
    held.delete(taskId);
    for (const waiter of task.waiters.splice(0)) waiter(undefined);
    onStale(taskId, task.epoch);
  };
  const write = async (task: Held, record: HistoryRecord) => {
    const fresh = record.log.slice(Math.min(task.sentLines, record.log.length));
    const ended = record.state !== task.state && !isRunning(record.state) ? [turnEnd(record, now())] : [];
    const events = within(task, [...fresh, ...ended], now());
    const written = await writeTask(pool, record.task_id, task.epoch, {
      state: record.state,
      result: toWorkerTask(record, now()),
      error: record.error,
      events,
    });
    if (!written) return stale(record.task_id, task);
    task.sentLines = record.log.length;
    task.events += events.length;
    task.state = record.state;
    if (!isRunning(record.state)) release(record.task_id, record);
    if (record.state === 'completed' || record.state === 'failed' || record.state === 'cancelled')
      held.delete(record.task_id);
  };
  const append = async (task: Held, taskId: string, line: TaskEvent) => {
    const events = within(task, [line], now());
    if (events.length > 0 && !(await appendTaskEvents(pool, taskId, task.epoch, events))) return stale(taskId, task);
    task.events += events.length;
  };
  // A write the database could not take because it is unreachable (down, restarting) is tried again, with a
  // growing wait, for as long as the task is held: the task's last record must reach it, or the task stays `working`.
  const persist = async (task: Held, taskId: string, run: () => Promise<void>) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        onError(taskId, errorMessage(error));
        if (!isConnectionLost(error) || held.get(taskId) !== task) return;
        await new Promise((resolve) => setTimeout(resolve, backoffDelay(attempt, { initialMs: 200, maxMs: 5_000 })));
      }
    }
  };
  return {
    hold(taskId, epoch, sent = { sentLines: 0, events: 0 }) {
      held.set(taskId, { epoch, ...sent, state: undefined, chain: Promise.resolve(), waiters: [] });
    },
    save(record) {
      const task = held.get(record.task_id);
      if (!task) return Promise.resolve();
      const snapshot = structuredClone(record);
      task.chain = task.chain.then(() => persist(task, record.task_id, () => write(task, snapshot)));
      return task.chain;
    },
    append(taskId, line) {
      const task = held.get(taskId);
      if (!task) return Promise.resolve();
      // The line is the record's: counted as sent once written, or given up on, so a save never writes it again.
      task.chain = task.chain
        .then(() => persist(task, taskId, () => append(task, taskId, line)))
        .then(() => void (task.sentLines += 1));
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

// The events that fit in the run's {@link TASK_EVENTS_LIMIT}, each bounded; the marker takes the last place.
function within(task: Held, events: TaskEvent[], now: number): TaskEvent[] {
  const room = TASK_EVENTS_LIMIT - task.events;
  if (room <= 0) return [];
  if (events.length < room) return events.map(boundEvent);
  return [...events.slice(0, room - 1).map(boundEvent), limitMarker(new Date(now).toISOString())];
}

// The event that ends a turn: `finish` with the state it reached, or `error` with the failure.
function turnEnd(record: HistoryRecord, now: number): TaskEvent {
  const time = new Date(now).toISOString();
  if (record.state === 'failed')
    return {
      time,
      level: 'error',
      type: 'error',
      kind: 'turn_end',
      message: `turn ${record.turns} failed: ${record.error?.type ?? 'error'}: ${record.error?.message ?? ''}`,
    };
  const what = record.state === 'idle' ? 'idle, waiting for the next prompt' : record.state;
  return { time, level: 'info', type: 'finish', kind: 'turn_end', message: `turn ${record.turns} over: ${what}` };
}
