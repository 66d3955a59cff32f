// `agency task` in fleet mode (AGENCY_DATABASE_URL set): the task goes through the fleet's queue to whichever idle
// worker takes it; `--continue` and `--end` go to the worker that holds the session, by the registry.
import type { Pool } from 'pg';
import { canonicalLabels, hasLabels } from '../../config/labels.ts';
import { AgencyError } from '../../core/errors.ts';
import type { WorkerTask } from '../../fleet/api/worker-schemas.ts';
import { readSessions, rememberSession, sessionsFile } from '../../fleet/directors/cli/sessions.ts';
import type { DispatchedTask } from '../../fleet/directors/task-dispatch.ts';
import type { FleetSettings } from '../../fleet/queue/settings.ts';
import { EXIT, exitCodeForTask } from '../exit-codes.ts';
import { type Output, paint } from '../render.ts';
import { stopOnSignals } from '../signals.ts';
import type { TaskCommandOptions } from './task.ts';

/** `agency task` through the queue at `databaseUrl`. */
export async function queueTaskCommand(
  prompt: string | undefined,
  options: TaskCommandOptions,
  { fleet, root }: { fleet: FleetSettings; root: string },
  out: Output,
  err: Output,
): Promise<number> {
  const { openFleetDatabase, createQueueDispatch, readTask } = await import('../../fleet/queue/index.ts');
  const db = openFleetDatabase(fleet.databaseUrl, {
    onError: (message) => err.write(`agency: fleet database: ${message}\n`),
  });
  const dispatch = createQueueDispatch({
    db,
    executor: fleet.executor,
    rerunOnLoss: fleet.rerunOnLoss,
    untilTaken: false,
  });
  const file = sessionsFile(root);
  try {
    await db.migrate();
    const session = options.session ?? (options.continue || options.end ? 'last' : undefined);
    const open = session === undefined ? undefined : await sessionTask(file, session);
    if (options.end) {
      await dispatch.end(open!);
      err.write(`${paint(err, 'green', '✓ session ended')} (${open!.task_id})\n`);
      return EXIT.ok;
    }
    let task: DispatchedTask;
    if (open) {
      await dispatch.continue(open, prompt ?? '');
      task = open;
    } else {
      task = await dispatch.dispatch({
        prompt: prompt ?? '',
        ...(options.model ? { model: options.model } : {}),
        ...(options.timeout ? { timeout_seconds: options.timeout } : {}),
        ...(session ? { session_id: session } : {}),
        ...(options.label?.length ? { labels: options.label } : {}),
      });
      err.write(`${task.task_id} queued on ${task.worker.url.slice('queue:'.length)}\n`);
      const unmatched = await noWorkerFor(db.pool, fleet.executor, options.label ?? []);
      if (unmatched) err.write(`${paint(err, 'yellow', unmatched)}\n`);
    }
    const stop = stopOnSignals(
      err,
      '\nCancelling the task…\n',
      () => void dispatch.cancel(task).catch(() => undefined),
    );
    const outcome = await dispatch.settle(task).finally(stop);
    if (outcome.state === 'lost') throw new AgencyError('worker_lost', outcome.error.message);
    const row = await readTask(db.pool, task.task_id);
    const where = { name: row?.worker ?? null, url: row?.worker ? `worker ${row.worker}` : null };
    await rememberSession(file, {
      session_id: task.session_id,
      task_id: task.task_id,
      url: task.worker.url,
      ...(row?.worker ? { name: row.worker } : {}),
      updated_at: new Date().toISOString(),
    });
    return report(outcome.task, where, options, out, err);
  } finally {
    await dispatch.close();
    await db.close();
  }
}

function report(
  task: WorkerTask,
  where: { name: string | null; url: string | null },
  options: TaskCommandOptions,
  out: Output,
  err: Output,
): number {
  err.write(`${task.task_id} ${task.state} on ${where.name ?? '(no worker)'}\n`);
  if (task.state === 'idle')
    err.write(`session ${task.session_id} is open: agency task --continue "…" or agency task --end\n`);
  if (task.error) err.write(`${paint(err, 'red', task.error.type)}: ${task.error.message}\n`);
  if (options.json) out.write(`${JSON.stringify({ worker: where, task })}\n`);
  else if (task.output) out.write(task.output.endsWith('\n') ? task.output : `${task.output}\n`);
  return exitCodeForTask(task);
}

// A warning when no live worker in the registry runs `executor` with every one of `labels`: the task stays queued
// until one starts (or Ctrl-C cancels it).
async function noWorkerFor(pool: Pool, executor: string, labels: readonly string[]): Promise<string | undefined> {
  const { listWorkers } = await import('../../fleet/queue/index.ts');
  const workers = await listWorkers(pool);
  const live = workers.filter((worker) => worker.health === 'healthy' || worker.health === 'late');
  if (live.some((worker) => worker.executors.includes(executor) && hasLabels(worker.labels, labels))) return undefined;
  const wanted = labels.length > 0 ? ` with the labels ${canonicalLabels(labels).join(', ')}` : '';
  return (
    `No live worker in the registry runs ${executor}${wanted}; the task stays queued until one starts ` +
    '(Ctrl-C cancels it)'
  );
}

// The session's last task the director remembers (`last`: the latest), with its queue.
async function sessionTask(file: string, session: string): Promise<DispatchedTask> {
  const sessions = await readSessions(file);
  const found = session === 'last' ? sessions[0] : sessions.find((each) => each.session_id === session);
  if (!found)
    throw new AgencyError(
      'invalid_argument',
      session === 'last'
        ? `No session to carry on: ${file} has none; start one with agency task "…"`
        : `Session ${session} is not in ${file}; agency task --session takes a session this director started`,
    );
  return {
    worker: { name: found.name ?? 'queue', url: found.url },
    task_id: found.task_id,
    session_id: found.session_id,
  };
}
