// The fleet's tasks as `agency serve` reads them from PostgreSQL (AGENCY_DATABASE_URL): the list of `agency.tasks`,
// and each task's events from `agency.task_history` as journal frames, live. A follower reads the rows after the last
// `seq` it sent, then waits on `LISTEN agency_tasks` (one connection for the server, made anew after it drops) or a
// poll every second, so a lost notification or a dropped connection loses nothing; the frame's seq is the row's,
// so a client resumes with `Last-Event-ID`.
import type { Pool } from 'pg';
import type { FleetTaskSummary } from '../../api/fleet-schemas.ts';
import { backoffDelay } from '../../core/backoff.ts';
import { sleep } from '../../core/clock.ts';
import { AgencyError } from '../../core/errors.ts';
import { isConnectionLost } from '../../fleet/queue/connection-lost.ts';
import { listTasks, readTaskEvents, type TaskEventRow } from '../../fleet/queue/task-events.ts';
import { readTask } from '../../fleet/queue/task-rows.ts';
import { createTaskWatch, type TaskWatch } from '../../fleet/queue/task-watch.ts';
import { EVENT_TYPES, EVENTS_VERSION, type EventFrame, type EventType } from '../../task/contracts/events.ts';

/** The fleet's tasks in its database. */
export type FleetTaskFeed = {
  /** The newest `limit` tasks, newest first. @throws AgencyError `network_failed` when the database is unreachable */
  list(limit: number): Promise<FleetTaskSummary[]>;
  /**
   * The task's events after `after` as frames, following it until it is final (or `signal` aborts).
   * @throws AgencyError `task_not_found`, `network_failed` (both before the first frame)
   */
  frames(id: string, after: number, signal: AbortSignal): Promise<AsyncIterable<EventFrame>>;
  close(): Promise<void>;
};

/** The fleet's database as the feed uses it (pg and pg-boss are loaded by whoever opened it, only in fleet mode). */
export type FeedDatabase = {
  pool: Pool;
  /** A failed connection as AgencyError `network_failed` naming the database; any other error as it is. */
  unreachable(error: unknown): unknown;
};

const FINAL = new Set(['completed', 'failed', 'cancelled']);
const PAGE = 200;

/** A {@link FleetTaskFeed} over the fleet database `opened` resolves to. @default pollMs 1000 */
export function createFleetTaskFeed(
  opened: Promise<FeedDatabase>,
  { pollMs = 1_000 }: { pollMs?: number } = {},
): FleetTaskFeed {
  let watch: Promise<TaskWatch> | undefined;
  const watching = () => (watch ??= opened.then((db) => createTaskWatch(db.pool, { pollMs })));
  const guard = async <T>(run: (pool: Pool) => Promise<T>): Promise<T> => {
    const db = await opened;
    try {
      return await run(db.pool);
    } catch (error) {
      throw db.unreachable(error);
    }
  };
  return {
    list: (limit) =>
      guard((pool) => listTasks(pool, limit)).catch((error: unknown) => {
        if (noTables(error)) return [];
        throw error;
      }),
    async frames(id, after, signal) {
      const row = await guard((pool) => readTask(pool, id)).catch((error: unknown) => {
        if (noTables(error)) return undefined;
        throw error;
      });
      if (!row) throw new AgencyError('task_not_found', `Task ${id} not found in the fleet database (agency.tasks)`);
      const { pool } = await opened;
      return follow(pool, await watching(), id, after, signal);
    },
    async close() {
      await (await watch)?.close();
    },
  };
}

// The rows after `after`, page by page, then a wait for the next change; ends once the task is final and every row
// is sent (its last write commits its state and its last events together). A database that went away is waited out.
async function* follow(
  pool: Pool,
  watch: TaskWatch,
  id: string,
  after: number,
  signal: AbortSignal,
): AsyncGenerator<EventFrame> {
  let last = after;
  for (let failures = 0; !signal.aborted;) {
    let final: boolean;
    let rows: TaskEventRow[];
    try {
      final = FINAL.has((await readTask(pool, id))?.state ?? 'cancelled');
      rows = await readTaskEvents(pool, id, last, PAGE);
      failures = 0;
    } catch (error) {
      if (!isConnectionLost(error)) throw error;
      await sleep(backoffDelay(++failures, { initialMs: 200, maxMs: 5_000 }), signal).catch(() => undefined);
      continue;
    }
    for (const row of rows) {
      last = row.seq;
      yield frameOf(row);
    }
    if (rows.length === PAGE) continue;
    if (final) return;
    await watch.changed(id, signal);
  }
}

/** A history row as a journal frame: its seq and id from the row's seq, its type from the event (or its level). */
export function frameOf(row: TaskEventRow): EventFrame {
  const type = typeOf(row);
  const time = Date.parse(row.time);
  return {
    version: EVENTS_VERSION,
    id: `evt_${String(row.seq).padStart(26, '0')}`,
    seq: row.seq,
    ts: Number.isFinite(time) ? new Date(time).toISOString() : row.at,
    type,
    message: row.message,
    data: { epoch: row.epoch, level: row.level },
    ...(type === 'error' ? { error: { code: 'task_failed', message: row.message } } : {}),
  };
}

function typeOf(row: TaskEventRow): EventType {
  if (row.type && (EVENT_TYPES as readonly string[]).includes(row.type)) return row.type as EventType;
  if (row.level === 'error') return 'error';
  return row.level === 'warn' ? 'warning' : 'phase.start';
}

// A database no worker has migrated yet has no `agency` tables: no tasks, rather than an error.
const noTables = (error: unknown) => (error as { code?: unknown }).code === '42P01';
