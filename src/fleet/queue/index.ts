// The fleet across hosts: PostgreSQL as the source of truth, pg-boss (v12) as the job queue. Loaded only when a
// database URL is configured (`AGENCY_DATABASE_URL`, or `database:` in a worker's or a director's config, the variable
// winning); nothing here is imported by the one-machine fleet.
//
// Public shape (kept stable):
//
// - `openFleetDatabase(url, options?)` → `FleetDatabase`: `{ url, pool (pg.Pool), boss (PgBoss), migrate(), close() }`.
//   `migrate()` runs agency's versioned migrations (schema `agency`) under a PostgreSQL advisory lock, so processes
//   starting at once do not race, then pg-boss's own (schema `pgboss`) and creates the queues. `close()` stops
//   pg-boss and ends the pool.
// - `createQueueDispatch(options)` → `TaskDispatch` (src/fleet/directors/task-dispatch.ts): `dispatch` inserts the
//   task's row and sends a pg-boss job (queue `agency-tasks-<executor>`, or `agency-tasks-<executor>/<label>/…` for a
//   task requiring labels, created on the first send; singletonKey = task id), `settle` follows the
//   row (LISTEN `agency_tasks`, with a poll fallback), `continue`/`end`/`cancel` go to the worker that holds the task
//   (its URL from the registry), or fail with `worker_lost` when that worker is gone.
// - Workers: `agency worker` switches to queue mode when `AGENCY_DATABASE_URL` is in its environment (or `database:`
//   in its config): it registers in `agency.workers` with its labels, heartbeats, takes jobs when idle from every
//   queue of its executor whose labels it has (the list read again every 5 s), and writes every state change of the
//   task (fenced by epoch) to `agency.tasks` and `agency.task_history`.
// - `failLostTasks(pool, options?)`: fails `worker_lost` the tasks whose worker was lost or stopped with no live
//   pg-boss job behind them (a later turn); each queue worker runs it every heartbeat, and `settle` while it waits.
//
// Tables (schema `agency`), readable by SQL:
// - `agency.workers(name, url, host, executors text[], labels text[], state, current_task, heartbeat_seconds,
//   last_heartbeat, started_at, stopped_at)`
// - `agency.tasks(id, executor, request jsonb, state, epoch, worker, session_id, result jsonb, error jsonb,
//   rerun_on_loss, created_at, updated_at)`; `state` is `queued`, `working`, `cancelling`, `idle`, `completed`,
//   `cancelled` or `failed`; `epoch` counts the takes (the fencing token), 0 while queued.
// - `agency.task_history(seq bigserial, task_id, epoch, event jsonb, at)`: every lifecycle line of the task and each
//   event its executor reported (`event.type`), with the epoch of the run that wrote it; `agency serve` streams them
//   (src/server/fleet/fleet-task-feed.ts).
// - `agency.schema_migrations(version, name, applied_at)`.
// - Dead letters: pg-boss queue `agency-tasks-dead` (a job whose payload fails validation, with the reason).
export {
  DEAD_LETTER_QUEUE,
  databaseUnreachable,
  type FleetDatabase,
  type FleetDatabaseOptions,
  openFleetDatabase,
  taskQueueName,
} from './database.ts';
export { checkDatabaseUrl, databaseWhere, fleetSettingsFrom, type FleetSettings } from './settings.ts';
export { type TaskJob, taskJobSchema } from './job.ts';
export { FLEET_MIGRATIONS, FLEET_SCHEMA_VERSION, migrateFleet } from './migrations.ts';
export { createQueueDispatch, holderUrl, type QueueDispatch, type QueueDispatchOptions } from './queue-dispatch.ts';
export { startQueueWorker, type QueueWorker, type QueueWorkerOptions } from './queue-worker.ts';
export { failLostTasks, type LostTask, type LostTaskSweep } from './lost-tasks.ts';
export { healthOf, listWorkers, readRegistry, type RegisteredWorker, type RegistryHealth } from './registry.ts';
export {
  cancelQueuedTask,
  readTask,
  takeTask,
  type TaskRow,
  taskHistory,
  TASKS_CHANNEL,
  writeTask,
} from './task-rows.ts';
