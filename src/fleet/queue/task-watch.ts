// Following task rows: one LISTEN connection per process wakes whoever waits on a task when its row changes, and a
// poll (every `pollMs`) covers a lost notification or a dropped connection.
import type { Pool, PoolClient } from 'pg';
import { backoffDelay } from '../../core/backoff.ts';
import { AgencyError } from '../../core/errors.ts';
import { isConnectionLost } from './connection-lost.ts';
import { readTask, TASKS_CHANNEL, type TaskRow } from './task-rows.ts';

/** Waits for task rows to change. */
export type TaskWatch = {
  /**
   * Resolves with the task's row once `done(row)` holds; `between`, if given, runs with each row read that does not,
   * before the wait for the next change. @throws AgencyError `aborted`, `task_not_found`
   */
  until(
    id: string,
    done: (row: TaskRow) => boolean,
    signal?: AbortSignal,
    between?: (row: TaskRow) => Promise<void>,
  ): Promise<TaskRow>;
  /**
   * Resolves at the task's next notification, after the poll interval (a lost notification, a dropped connection:
   * the listening connection is made anew on the next call), or when `signal` aborts.
   */
  changed(id: string, signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
};

/** Creates a {@link TaskWatch} over `pool`. @default pollMs 1000 */
export function createTaskWatch(pool: Pool, { pollMs = 1_000 }: { pollMs?: number } = {}): TaskWatch {
  const waiters = new Map<string, Set<() => void>>();
  let listener: Promise<PoolClient | undefined> | undefined;
  const wake = (id: string) => {
    for (const waiter of waiters.get(id) ?? []) waiter();
  };
  const listen = () =>
    (listener ??= pool
      .connect()
      .then(async (client) => {
        client.on('notification', (message) => message.payload && wake(message.payload));
        // The connection is dropped once, at its first error; later errors of the dead connection are ignored.
        client.on('error', () => undefined);
        client.once('error', () => {
          listener = undefined;
          client.release(true);
        });
        await client.query(`LISTEN ${TASKS_CHANNEL}`);
        return client;
      })
      .catch(() => {
        listener = undefined;
        return undefined;
      }));
  return {
    async until(id, done, signal, between) {
      for (let failures = 0; ;) {
        if (signal?.aborted) throw new AgencyError('aborted', `stopped following task ${id}`);
        await listen();
        const row = await readTask(pool, id).catch((error: unknown) => {
          if (isConnectionLost(error)) return 'unreachable' as const;
          throw error;
        });
        if (row === 'unreachable') {
          // The database is down or restarting: read again after a growing wait, listening anew once it is back.
          await nextChange(waiters, id, backoffDelay(++failures, { initialMs: 100, maxMs: 5_000 }), signal);
          continue;
        }
        failures = 0;
        if (!row) throw new AgencyError('task_not_found', `Task ${id} not found in the fleet database`);
        if (done(row)) return row;
        await between?.(row);
        await nextChange(waiters, id, pollMs, signal);
      }
    },
    async changed(id, signal) {
      await listen();
      await nextChange(waiters, id, pollMs, signal);
    },
    async close() {
      const client = await listener;
      listener = undefined;
      if (client) {
        // Not back to the pool: it listened, and its error handler would release it a second time.
        client.removeAllListeners('error');
        client.on('error', () => undefined);
        client.release(true);
      }
    },
  };
}

// Resolves at the task's next notification, after `pollMs`, or when the signal aborts.
function nextChange(
  waiters: Map<string, Set<() => void>>,
  id: string,
  pollMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve) => {
    const set = waiters.get(id) ?? new Set();
    waiters.set(id, set);
    const done = () => {
      clearTimeout(timer);
      set.delete(done);
      if (set.size === 0) waiters.delete(id);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, pollMs);
    set.add(done);
    signal?.addEventListener('abort', done, { once: true });
  });
}
