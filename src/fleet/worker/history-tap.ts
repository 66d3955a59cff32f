import type { HistoryRecord } from '../api/worker-schemas.ts';
import type { HistoryStore } from './history-store.ts';
import type { LogLine } from './task-record.ts';

/** Told of every record a worker saves, after it is saved (a queue-mode worker mirrors them to the database). */
export type HistoryListener = (record: HistoryRecord) => Promise<void>;

/** Told of each line an executor's event adds to a task's record, with its agent.events type (see `TurnContext`). */
export type LineListener = (taskId: string, line: LogLine & { type: string }) => void;

/** A place for a {@link LineListener} set later (`listen`); `onLine` passes each line to it. */
export function lineTap(): { onLine: LineListener; listen(listener: LineListener): void } {
  let listener: LineListener | undefined;
  return {
    onLine: (taskId, line) => listener?.(taskId, line),
    listen(next) {
      listener = next;
    },
  };
}

/**
 * A history store that tells a listener, set later with `listen`, of every record saved. The listener's failure is
 * its own to report: the worker's save never fails for it.
 */
export function tappedHistory(store: HistoryStore): { store: HistoryStore; listen(listener: HistoryListener): void } {
  let listener: HistoryListener | undefined;
  return {
    store: {
      ...store,
      async save(record, options) {
        await store.save(record, options);
        await listener?.(record).catch(() => undefined);
      },
    },
    listen(next) {
      listener = next;
    },
  };
}
