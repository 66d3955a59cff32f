// A worker in queue mode: registered in `agency.workers` with heartbeats, it takes jobs from its executor's queue
// when idle, takes each task with a new epoch, runs it with the worker's own machinery, and mirrors the task's
// records to `agency.tasks` (fenced). A job that fails validation is dead-lettered; a job whose earlier run was lost
// resumes from its journal (`builtin` on shared sessions), runs again (`rerun_on_loss`) or ends `worker_lost`; a
// later turn whose worker was lost (no job behind it) is failed `worker_lost` by a pass every heartbeat.
import type { JobResult } from 'pg-boss';
import { errorMessage } from '../../core/errors.ts';
import type { HistoryListener, LineListener } from '../worker/history-tap.ts';
import type { LifecycleLog } from '../worker/lifecycle-log.ts';
import type { Worker } from '../worker/worker.ts';
import { isConnectionLost } from './connection-lost.ts';
import { type FleetDatabase, openFleetDatabase } from './database.ts';
import { jobProblem, type TaskJob } from './job.ts';
import { workLabelQueues } from './label-queues.ts';
import { failLostTasks, type LostTask } from './lost-tasks.ts';
import { heartbeat, markStopped, registerWorker } from './registry.ts';
import { createTaskMirror, type TaskMirror } from './task-mirror.ts';
import { placeSession, type SessionPlace } from './session-place.ts';
import { heldTasks, insertTask, type Take, takeTask, writeTask } from './task-rows.ts';
import { commitUnsentEnds } from './unsent-ends.ts';

/** Options of {@link startQueueWorker}. */
export type QueueWorkerOptions = {
  url: string;
  name: string;
  executor: string;
  /** The worker's labels: it takes tasks whose labels are all among these. @default [] */
  labels?: readonly string[];
  worker: Worker;
  lifecycle: LifecycleLog;
  /** Where the worker's saved records go (the history store's tap). */
  listen: (listener: HistoryListener) => void;
  /** Where the lines of executors' events go as they happen (the worker's line tap). */
  listenLines?: (listener: LineListener) => void;
  databaseUrl: string;
  /** Where the URL came from, as errors name it. @default 'AGENCY_DATABASE_URL' */
  databaseSource?: string;
  /** Between registry heartbeats. @default 10 */
  heartbeatSeconds?: number;
  /** The shared sessions directory (`fleet.shared_sessions`), checked: queue tasks' sessions go there. @default none */
  sharedSessions?: string | undefined;
  /** The lease of a taken task, at least 10 s. @default 10 */
  leaseSeconds?: number;
  now?: () => number;
};

/** A worker taking tasks from the queue. */
export type QueueWorker = {
  db: FleetDatabase;
  /** Stops taking jobs, marks the worker stopped in the registry and closes the database. */
  stop(): Promise<void>;
};

/** Registers the worker, starts its heartbeat and takes jobs from its executor's queues its labels match. */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<QueueWorker> {
  const { name, worker, lifecycle } = options;
  const heartbeatSeconds = options.heartbeatSeconds ?? 10;
  const db = openFleetDatabase(options.databaseUrl, {
    ...(options.leaseSeconds ? { leaseSeconds: options.leaseSeconds } : {}),
    ...(options.databaseSource ? { source: options.databaseSource } : {}),
    onError: (message) => lifecycle.warn(`fleet database: ${message}`),
  });
  await db.migrate();
  const mirror = createTaskMirror({
    pool: db.pool,
    now: options.now ?? Date.now,
    onStale: (taskId, epoch) => {
      lifecycle.warn(`task ${taskId}: write with epoch ${epoch} rejected, another worker took the task; stopping it`);
      worker.cancel(taskId).catch(() => undefined);
    },
    onError: (taskId, message) => lifecycle.warn(`task ${taskId}: could not write to the fleet database: ${message}`),
  });
  options.listen((record) => mirror.save(record));
  options.listenLines?.((taskId, line) => void mirror.append(taskId, line));
  const labels = [...(options.labels ?? [])];
  await registerWorker(db.pool, { name, url: options.url, executors: [options.executor], labels, heartbeatSeconds });
  // A restarted worker still holds its idle sessions (from its history): their next turns are mirrored as before.
  for (const { id, epoch, lines, events } of await heldTasks(db.pool, name, 'idle'))
    mirror.hold(id, epoch, { sentLines: lines, events });
  const recordOf = (id: string) => worker.record(id).catch(() => undefined);
  const unsent = await commitUnsentEnds(db.pool, name, mirror, recordOf);
  for (const id of unsent.committed)
    lifecycle.warn(`task ${id}: its end, saved here before a crash, is now written to the fleet database`);
  logLost(lifecycle, unsent.failed);
  let sweeping: Promise<void> | undefined;
  const beat = setInterval(() => {
    const current = worker.active()?.record.task_id ?? null;
    const state = worker.phase === 'stopping' ? 'stopping' : current ? 'working' : 'idle';
    heartbeat(db.pool, name, state, current).catch((error: unknown) =>
      lifecycle.warn(`fleet heartbeat failed: ${errorMessage(error)}`),
    );
    sweeping ??= sweepLostTasks(db, lifecycle).finally(() => (sweeping = undefined));
  }, heartbeatSeconds * 1_000);
  beat.unref();
  const queues = await workLabelQueues({
    boss: db.boss,
    executor: options.executor,
    labels,
    handle: (jobs) => Promise.all(jobs.map((job) => runJob({ ...options, db, mirror }, job))),
    onQueue: (queue) => lifecycle.info(`queue mode: taking tasks from ${queue}`),
    onError: (message) => lifecycle.warn(`fleet queues: ${message}`),
  });
  let stopping: Promise<void> | undefined;
  return {
    db,
    stop: () =>
      (stopping ??= (async () => {
        clearInterval(beat);
        await sweeping;
        await queues.stop();
        await markStopped(db.pool, name).catch(() => undefined);
        await db.close();
      })()),
  };
}

// Every heartbeat, a pass over the fleet's tasks: those whose worker was lost during a later turn fail `worker_lost`.
async function sweepLostTasks(db: FleetDatabase, lifecycle: LifecycleLog): Promise<void> {
  try {
    logLost(lifecycle, await failLostTasks(db.pool));
  } catch (error) {
    // An unreachable database is the heartbeat's to report.
    if (!isConnectionLost(error))
      lifecycle.warn(`fleet: could not look for tasks of lost workers: ${errorMessage(error)}`);
  }
}

const logLost = (lifecycle: LifecycleLog, tasks: LostTask[]) => {
  for (const task of tasks)
    lifecycle.warn(`task ${task.id}: failed worker_lost (epoch ${task.epoch}): ${task.message}`);
};

type JobContext = QueueWorkerOptions & { db: FleetDatabase; mirror: TaskMirror };

// One job: checked, taken with a new epoch, run to the end of its first turn. The job completes then; the session's
// later turns are asked of this worker directly (its URL in the registry) and mirrored the same way.
async function runJob(
  context: JobContext,
  job: { id: string; data: unknown; signal: AbortSignal },
): Promise<JobResult> {
  const { db, mirror, worker, lifecycle, name } = context;
  const problem = jobProblem(job.data);
  if (problem) {
    lifecycle.warn(`job ${job.id}: not a task (${problem}); dead-lettered`);
    return { id: job.id, status: 'deadletter', output: { reason: problem } };
  }
  const data = job.data as TaskJob;
  await insertTask(db.pool, {
    id: data.task_id,
    executor: data.executor,
    request: data.request,
    sessionId: data.request.session_id,
    rerunOnLoss: data.rerun_on_loss,
  });
  await waitUntilIdle(worker, job.signal);
  // Shutting down (or the lease already lost): the job goes back to the queue untouched, for another worker.
  if (worker.phase !== 'ready' || job.signal.aborted)
    return { id: job.id, status: 'failed', output: { reason: `worker ${name} is ${worker.phase}` } };
  const take = await takeTask(db.pool, data.task_id, name);
  if (!take) return { id: job.id, status: 'completed', output: { skipped: 'the task is no longer queued' } };
  const place = await sessionPlace(context, data, take);
  if (place === 'refused') return { id: job.id, status: 'completed', output: { failed: 'session' } };
  if (take.before !== 'queued') {
    const lost = `its worker ${take.previousWorker ?? '(unknown)'} was lost (lease expired) while it ran`;
    if (place?.retake)
      lifecycle.warn(`task ${data.task_id}: ${lost}; resuming its run from its journal (epoch ${take.epoch})`);
    else if (!take.row.rerun_on_loss) {
      await writeTask(db.pool, data.task_id, take.epoch, {
        state: 'failed',
        error: { type: 'worker_lost', message: `Task ${data.task_id}: ${lost}; it is not run again` },
        events: [{ time: new Date().toISOString(), level: 'error', message: `${lost}; failed (worker_lost)` }],
      });
      return { id: job.id, status: 'completed', output: { worker_lost: true } };
    } else lifecycle.warn(`task ${data.task_id}: ${lost}; running it again (epoch ${take.epoch})`);
  }
  mirror.hold(data.task_id, take.epoch);
  const over = mirror.turnOver(data.task_id);
  const onLeaseLost = () => {
    lifecycle.warn(`task ${data.task_id}: lease lost; stopping it`);
    worker.cancel(data.task_id).catch(() => undefined);
  };
  job.signal.addEventListener('abort', onLeaseLost, { once: true });
  try {
    await worker.submit(data.request, { taskId: data.task_id, ...place });
    await over;
  } catch (error) {
    await writeTask(db.pool, data.task_id, take.epoch, {
      state: 'failed',
      error: { type: 'internal', message: `the worker ${name} refused the task: ${errorMessage(error)}` },
    });
  } finally {
    job.signal.removeEventListener('abort', onLeaseLost);
  }
  return { id: job.id, status: 'completed' };
}

// With shared sessions, where the task runs (and whether it resumes a lost run); a session that cannot be used
// there fails the task, naming why.
async function sessionPlace(
  { db, sharedSessions }: JobContext,
  data: TaskJob,
  take: Take,
): Promise<SessionPlace | 'refused' | undefined> {
  if (!sharedSessions) return undefined;
  const task = { sessionId: data.request.session_id, executor: data.executor, epoch: take.epoch };
  try {
    return await placeSession(sharedSessions, {
      ...task,
      lost: take.before !== 'queued',
      rerun: take.row.rerun_on_loss,
    });
  } catch (error) {
    const message = `Task ${data.task_id}: its session on the shared storage cannot be used: ${errorMessage(error)}`;
    await writeTask(db.pool, data.task_id, take.epoch, { state: 'failed', error: { type: 'internal', message } });
    return 'refused';
  }
}

// A queue-mode worker still answers HTTP tasks; a job waits while one runs.
async function waitUntilIdle(worker: Worker, signal: AbortSignal): Promise<void> {
  while (worker.active() && !signal.aborted) await new Promise((resolve) => setTimeout(resolve, 50));
}
