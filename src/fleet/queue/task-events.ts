// A task's events in `agency.task_history`, as the server's live timeline reads them: a worker appends each event
// while its task runs (fenced by epoch, bounded in size), and a reader takes the rows after the last `seq` it saw.
// A task's rows are written under its row's lock (`UPDATE agency.tasks … WHERE epoch = $2` first), so within one
// task the order of `seq` is the order of commits: reading `seq > after` never skips a row committed later.
import type { Pool } from 'pg';
import type { WorkerTaskState } from '../api/worker-schemas.ts';
import { TASKS_CHANNEL, type TaskEvent } from './task-rows.ts';

/** The longest message an event keeps, in characters, with the marker that says how much of the rest was cut. */
export const EVENT_MESSAGE_CHARS = 4_096;
/** The most events one run (epoch) of a task mirrors; one marker event says when the rest are left out. */
export const TASK_EVENTS_LIMIT = 2_000;

/** An event as the reader gets it: the row's seq and epoch, the database's time, the message already bounded. */
export type TaskEventRow = TaskEvent & { seq: number; epoch: number; at: string };

/** An event whose message is longer than {@link EVENT_MESSAGE_CHARS}, cut with a marker; others as they are. */
export function boundEvent(event: TaskEvent): TaskEvent {
  return { ...event, message: boundMessage(event.message, event.message.length) };
}

/** The marker event that ends a run's mirrored events once {@link TASK_EVENTS_LIMIT} is reached. */
export function limitMarker(time: string): TaskEvent {
  return {
    time,
    level: 'warn',
    type: 'warning',
    kind: 'limit',
    message:
      `this run reached ${TASK_EVENTS_LIMIT} events, the most the fleet database keeps of one run; later events ` +
      "are left out (the task's state and result are still written, and the worker's history has its lines)",
  };
}

/**
 * Appends events of the run holding `epoch`, in one transaction after the fencing `UPDATE`, then `NOTIFY`s. False
 * when the epoch is stale (another worker took the task over): nothing is written.
 */
export async function appendTaskEvents(pool: Pool, id: string, epoch: number, events: TaskEvent[]): Promise<boolean> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const fenced = await client.query('UPDATE agency.tasks SET updated_at = now() WHERE id = $1 AND epoch = $2', [
      id,
      epoch,
    ]);
    if (fenced.rowCount !== 1) {
      await client.query('ROLLBACK');
      return false;
    }
    for (const event of events)
      await client.query('INSERT INTO agency.task_history (task_id, epoch, event) VALUES ($1, $2, $3)', [
        id,
        epoch,
        JSON.stringify(boundEvent(event)),
      ]);
    await client.query('SELECT pg_notify($1, $2)', [TASKS_CHANNEL, id]);
    await client.query('COMMIT');
    return true;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Up to `limit` events of a task after `after`, oldest first. The message is cut in SQL, so an oversized row (written
 * by hand, or by another version) is never read whole.
 */
export async function readTaskEvents(pool: Pool, id: string, after: number, limit = 200): Promise<TaskEventRow[]> {
  const { rows } = await pool.query<{
    seq: string;
    epoch: number;
    at: Date;
    time: unknown;
    level: unknown;
    type: unknown;
    message: string | null;
    length: number | null;
  }>(
    `SELECT seq, epoch, at, event->'time' AS time, event->'level' AS level, event->'type' AS type,
       left(event->>'message', $4) AS message, length(event->>'message') AS length
     FROM agency.task_history WHERE task_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [id, after, limit, EVENT_MESSAGE_CHARS],
  );
  return rows.map((row) => ({
    seq: Number(row.seq),
    epoch: row.epoch,
    at: row.at.toISOString(),
    time: typeof row.time === 'string' ? row.time : row.at.toISOString(),
    level: typeof row.level === 'string' ? row.level.slice(0, 16) : 'info',
    ...(typeof row.type === 'string' ? { type: row.type.slice(0, 32) } : {}),
    message: boundMessage(row.message ?? '', row.length ?? 0),
  }));
}

/** A task as the fleet's task list shows it. */
export type TaskSummaryRow = {
  id: string;
  executor: string;
  state: WorkerTaskState;
  epoch: number;
  worker: string | null;
  session_id: string;
  prompt: string;
  created_at: string;
  updated_at: string;
};

/** The newest `limit` tasks of `agency.tasks`, newest first; the prompt cut to 200 characters. */
export async function listTasks(pool: Pool, limit: number): Promise<TaskSummaryRow[]> {
  const { rows } = await pool.query<Omit<TaskSummaryRow, 'created_at' | 'updated_at'> & Record<string, Date>>(
    `SELECT id, executor, state, epoch, worker, session_id, left(request->>'prompt', 200) AS prompt, created_at,
       updated_at
     FROM agency.tasks ORDER BY created_at DESC, id LIMIT $1`,
    [limit],
  );
  return rows.map((row) => ({
    ...row,
    prompt: row.prompt ?? '',
    created_at: row.created_at!.toISOString(),
    updated_at: row.updated_at!.toISOString(),
  }));
}

// A message of at most EVENT_MESSAGE_CHARS characters, the marker included, so a cut message is never cut again.
function boundMessage(message: string, length: number): string {
  if (length <= EVENT_MESSAGE_CHARS) return message;
  // The marker's length, with room for the count's digits.
  const kept = EVENT_MESSAGE_CHARS - 48;
  return `${message.slice(0, kept)} … [cut: ${length - kept} more characters]`;
}
