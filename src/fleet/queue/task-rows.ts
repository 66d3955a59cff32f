// The rows of `agency.tasks` and `agency.task_history`: a task's row is inserted when it is queued, taken by a
// worker with a new epoch (the fencing token), and written only by the run that holds the current epoch.
import type { Pool, PoolClient } from 'pg';
import type { WorkerTask, WorkerTaskRequest, WorkerTaskState } from '../api/worker-schemas.ts';

/** The channel `NOTIFY`d with a task's id whenever its row or history changes. */
export const TASKS_CHANNEL = 'agency_tasks';

/** A task's row, as SQL reads it. */
export type TaskRow = {
  id: string;
  executor: string;
  request: WorkerTaskRequest;
  state: WorkerTaskState;
  epoch: number;
  worker: string | null;
  session_id: string;
  result: WorkerTask | null;
  error: { type: string; message: string } | null;
  rerun_on_loss: boolean;
};

/**
 * One event of a task: a lifecycle line, or (with `type`, an agent.events type such as `tool.call`) an event its
 * executor reported while it ran.
 */
export type TaskEvent = {
  time: string;
  level: string;
  message: string;
  type?: string;
  /** Set on an event that is not one of the record's lines: the end of a turn, or the marker of the events limit. */
  kind?: 'turn_end' | 'limit';
};

/** Inserts a queued task's row; a second insert of the same id is ignored (a dispatch retried). */
export async function insertTask(
  pool: Pool,
  task: { id: string; executor: string; request: WorkerTaskRequest; sessionId: string; rerunOnLoss: boolean },
): Promise<void> {
  await pool.query(
    `INSERT INTO agency.tasks (id, executor, request, session_id, rerun_on_loss) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO NOTHING`,
    [task.id, task.executor, JSON.stringify(task.request), task.sessionId, task.rerunOnLoss],
  );
}

/** A task's row, or undefined. */
export async function readTask(pool: Pool, id: string): Promise<TaskRow | undefined> {
  const { rows } = await pool.query<TaskRow>(
    `SELECT id, executor, request, state, epoch, worker, session_id, result, error, rerun_on_loss
     FROM agency.tasks WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/** The newest task of a session that is not in `known`, or undefined. */
export async function sessionTask(
  pool: Pool,
  sessionId: string,
  known: ReadonlySet<string>,
): Promise<TaskRow | undefined> {
  const { rows } = await pool.query<TaskRow>(
    `SELECT id, executor, request, state, epoch, worker, session_id, result, error, rerun_on_loss
     FROM agency.tasks WHERE session_id = $1 ORDER BY created_at DESC LIMIT 50`,
    [sessionId],
  );
  return rows.find((row) => !known.has(row.id));
}

/** What {@link takeTask} found: the new epoch, and the state the task was in (`working`: a run before was lost). */
export type Take = { epoch: number; before: WorkerTaskState; previousWorker: string | null; row: TaskRow };

/**
 * Assigns a task to `worker` with the next epoch, in one statement (the row is locked while it runs): a task that
 * is queued, or working under a run whose lease expired. Undefined when the task is past that (idle, cancelled,
 * finished) or has no row.
 */
export async function takeTask(pool: Pool, id: string, worker: string): Promise<Take | undefined> {
  const { rows } = await pool.query<TaskRow & { before: WorkerTaskState; previous_worker: string | null }>(
    `WITH prior AS (SELECT id, state, worker FROM agency.tasks WHERE id = $1 FOR UPDATE)
     UPDATE agency.tasks t SET epoch = t.epoch + 1, worker = $2, state = 'working', updated_at = now()
     FROM prior WHERE t.id = prior.id AND prior.state IN ('queued', 'working', 'cancelling')
     RETURNING t.id, t.executor, t.request, t.state, t.epoch, t.worker, t.session_id, t.result, t.error,
       t.rerun_on_loss, prior.state AS before, prior.worker AS previous_worker`,
    [id, worker],
  );
  const row = rows[0];
  if (!row) return undefined;
  const { before, previous_worker: previousWorker, ...task } = row;
  return { epoch: task.epoch, before, previousWorker, row: task };
}

/** A write about a task by the run holding `epoch`. */
export type TaskWrite = {
  state: WorkerTaskState;
  result?: WorkerTask;
  error?: { type: string; message: string } | null;
  events?: TaskEvent[];
};

/**
 * Writes a task's state (and result, and new history lines) if `epoch` is still the task's: `UPDATE … WHERE id = $1
 * AND epoch = $2`, the history in the same transaction, then a `NOTIFY`. False when the epoch is stale (another
 * worker took the task over): nothing is written.
 */
export async function writeTask(pool: Pool, id: string, epoch: number, write: TaskWrite): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const updated = await client.query(
      `UPDATE agency.tasks SET state = $3, result = coalesce($4, result), error = $5, updated_at = now()
       WHERE id = $1 AND epoch = $2`,
      [id, epoch, write.state, write.result ? JSON.stringify(write.result) : null, jsonOrNull(write.error)],
    );
    if (updated.rowCount !== 1) return false;
    for (const event of write.events ?? [])
      await client.query('INSERT INTO agency.task_history (task_id, epoch, event) VALUES ($1, $2, $3)', [
        id,
        epoch,
        JSON.stringify(event),
      ]);
    await client.query('SELECT pg_notify($1, $2)', [TASKS_CHANNEL, id]);
    return true;
  });
}

/** Cancels a task no worker has taken yet; false when one has (or it is gone). */
export async function cancelQueuedTask(pool: Pool, id: string): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    const { rowCount } = await client.query(
      `UPDATE agency.tasks SET state = 'cancelled', updated_at = now(),
         error = '{"type":"cancelled","message":"cancelled before a worker took it"}'
       WHERE id = $1 AND state = 'queued'`,
      [id],
    );
    if (rowCount !== 1) return false;
    await client.query('SELECT pg_notify($1, $2)', [TASKS_CHANNEL, id]);
    return true;
  });
}

/**
 * The tasks a worker holds in `state`, with their epochs, how many of the record's lines that epoch wrote, and how
 * many events in all.
 */
export async function heldTasks(
  pool: Pool,
  worker: string,
  state: WorkerTaskState,
): Promise<{ id: string; epoch: number; lines: number; events: number }[]> {
  const { rows } = await pool.query<{ id: string; epoch: number; lines: number; events: number }>(
    `SELECT id, epoch, counts.lines, counts.events FROM agency.tasks t,
       LATERAL (SELECT (count(*) FILTER (WHERE NOT h.event ? 'kind'))::int AS lines, count(*)::int AS events
         FROM agency.task_history h WHERE h.task_id = t.id AND h.epoch = t.epoch) counts
     WHERE worker = $1 AND state = $2`,
    [worker, state],
  );
  return rows;
}

/** The history lines of a task, oldest first, with the epoch that wrote each. */
export async function taskHistory(pool: Pool, id: string): Promise<(TaskEvent & { epoch: number; seq: number })[]> {
  const { rows } = await pool.query<{ seq: string; epoch: number; event: TaskEvent }>(
    'SELECT seq, epoch, event FROM agency.task_history WHERE task_id = $1 ORDER BY seq',
    [id],
  );
  return rows.map((row) => ({ ...row.event, epoch: row.epoch, seq: Number(row.seq) }));
}

async function inTransaction<T>(pool: Pool, run: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await run(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

const jsonOrNull = (value: unknown) => (value == null ? null : JSON.stringify(value));
