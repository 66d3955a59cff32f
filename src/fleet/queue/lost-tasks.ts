// A task whose worker died during a later turn: that turn went to the worker over HTTP, with no pg-boss job behind it
// whose lease could lapse, so nothing else would ever end it. Once the registry says the worker holding it is lost or
// stopped, and no job of the task is live (a first turn's is pg-boss's to hand on), the task fails `worker_lost`.
import type { Pool } from 'pg';
import { HEALTH_INTERVALS } from './registry.ts';
import { TASKS_CHANNEL } from './task-rows.ts';

/** A task {@link failLostTasks} failed: its new epoch, the worker that held it and why it counts as lost. */
export type LostTask = { id: string; epoch: number; worker: string; message: string };

/** Options of {@link failLostTasks}. */
export type LostTaskSweep = {
  /** Only this task. @default every task */
  taskId?: string;
  /** Most tasks failed in one pass. @default 20 */
  limit?: number;
  /**
   * A worker just restarted, whose history says it lost its run of the task at its restart: lost for this pass,
   * whatever its heartbeats say. @default none
   */
  restarted?: string;
};

/**
 * Fails with `worker_lost` each `working` or `cancelling` task whose holder is `lost` or `stopped` (as the registry's
 * `healthOf` says: a last heartbeat older than 6 intervals, or a clean shutdown), not registered, or the `restarted`
 * worker, and that has no live pg-boss job. One statement, under the rows' locks: the epoch goes up (so the lost
 * worker, back, has its writes rejected), the row is `failed` with an error naming the worker and its last heartbeat,
 * a history line says so with the new epoch, and `NOTIFY agency_tasks` wakes whoever follows the task. Rows another
 * transaction holds are skipped (the next pass sees them), so passes that run at once fail a task once. A database
 * that started less than 6 heartbeat intervals ago counts no worker as lost: the heartbeats it missed were its own
 * absence.
 */
export async function failLostTasks(
  pool: Pool,
  { taskId, limit = 20, restarted }: LostTaskSweep = {},
): Promise<LostTask[]> {
  const { rows } = await pool.query<LostTask & { notified: unknown }>(LOST_TASKS_SQL, [
    taskId ?? null,
    limit,
    HEALTH_INTERVALS.lost,
    TASKS_CHANNEL,
    new Date().toISOString(),
    restarted ?? null,
  ]);
  return rows.map(({ id, epoch, worker, message }) => ({ id, epoch, worker, message }));
}

// The one statement that reads pg-boss's tables: `pgboss.job` (pg-boss v12, schema `pgboss` as database.ts opens it),
// a job's `singleton_key` being its task's id (the dispatch sends it so) and its `state` one of created, retry, active
// while it is live (pg-boss's `job_state`; completed, cancelled and failed jobs are not). pg-boss has no call that
// finds a job by key across queues; a task's queue (its label set) is not in its row.
const LOST_TASKS_SQL = `
  WITH lost AS (
    SELECT t.id, t.epoch, t.worker,
      CASE WHEN t.worker = $6 THEN 'restarted' WHEN w.name IS NULL THEN 'is not registered'
        ELSE CASE WHEN w.state = 'stopped' THEN 'stopped' ELSE 'was lost' END || ' (last heartbeat ' ||
          to_char(w.last_heartbeat AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || ')' END AS why
    FROM agency.tasks t LEFT JOIN agency.workers w ON w.name = t.worker
    WHERE t.state IN ('working', 'cancelling') AND t.worker IS NOT NULL AND ($1::text IS NULL OR t.id = $1)
      AND (t.worker = $6 OR w.name IS NULL OR w.state = 'stopped' OR (
        now() - w.last_heartbeat > $3 * w.heartbeat_seconds * interval '1 second' AND
        now() - pg_postmaster_start_time() > $3 * w.heartbeat_seconds * interval '1 second'))
      AND NOT EXISTS (
        SELECT 1 FROM pgboss.job j WHERE j.singleton_key = t.id AND j.state IN ('created', 'retry', 'active'))
    ORDER BY t.updated_at
    LIMIT $2
    FOR UPDATE OF t SKIP LOCKED
  ), failed AS (
    UPDATE agency.tasks t SET epoch = t.epoch + 1, state = 'failed', updated_at = now(),
      error = jsonb_build_object('type', 'worker_lost', 'message',
        'Task ' || t.id || ': its worker ' || lost.worker || ' ' || lost.why ||
        ' while a turn ran; the task is failed (start a new task with its session_id to go on from there)')
    FROM lost WHERE t.id = lost.id AND t.epoch = lost.epoch
    RETURNING t.id, t.epoch, lost.worker, t.error->>'message' AS message
  ), history AS (
    INSERT INTO agency.task_history (task_id, epoch, event)
    SELECT id, epoch, jsonb_build_object('time', $5::text, 'level', 'error', 'message', message || ' (worker_lost)')
    FROM failed
  )
  SELECT id, epoch, worker, message, pg_notify($4, id) AS notified FROM failed`;
