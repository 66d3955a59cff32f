import type { HistoryRecord } from '../api/worker-schemas.ts';
import type { HistoryStore } from './history-store.ts';

/** Told of every record a worker saves, after it is saved (a queue-mode worker mirrors them to the database). */
export type HistoryListener = (record: HistoryRecord) => Promise<void>;

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
