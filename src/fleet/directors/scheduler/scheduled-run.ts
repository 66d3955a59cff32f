// One scheduled run: take the workdir's lock, hand the task to an idle worker (waiting with backoff), follow it to
// its end, and record the outcome in the history. Every step is in `state.json` before it is taken: the session the
// task will start is recorded before it is handed out, so a restart looks for it on the workers (placement.ts)
// instead of handing the run out twice.
import { randomUUID } from 'node:crypto';
import { sleep } from '../../../core/clock.ts';
import { AgencyError, errorMessage } from '../../../core/errors.ts';
import type { DirectorEntry, EntryResult } from '../../api/director-schemas.ts';
import type { DirectorContext, WorkspaceLock } from '../director.ts';
import type { DispatchOutcome, DispatchedTask } from '../task-dispatch.ts';
import type { SchedulerConfig } from './schedule-config.ts';
import type { ScheduledRun, SchedulerState } from './scheduler-state.ts';

/** What a run works with. */
export type RunContext = DirectorContext<SchedulerConfig, SchedulerState>;

const LOCK_RETRY_MS = { first: 1000, max: 30_000 };

/** The history entry of a run as it starts. */
export function newEntry(
  run: ScheduledRun,
  state: DirectorEntry['state'],
  message: string,
  now: number,
): DirectorEntry {
  return {
    id: run.id,
    kind: 'scheduled_run',
    title: `${run.entry} at ${run.slot}`,
    state,
    started_at: run.started_at,
    finished_at: ['waiting', 'running'].includes(state) ? null : new Date(now).toISOString(),
    task: run.task,
    result: null,
    details: { entry: run.entry, slot: run.slot, workdir: run.workdir },
    log: [line(message, now)],
  };
}

function line(message: string, now: number, level = 'info') {
  return { time: new Date(now).toISOString(), level, message };
}

/**
 * Runs `run` to its end: a fresh one from the lock, a resumed one (its task handed out before a restart) from the
 * settle. Resolves once the outcome is recorded and the run is out of `state.json`; when `context.signal` aborts
 * first, it leaves the run in `state.json` for the next start.
 */
export async function executeRun(context: RunContext, run: ScheduledRun, waitMs: number): Promise<void> {
  const { timers } = context;
  const entry = (await context.history.read(run.id)) ?? newEntry(run, 'waiting', 'due', timers.now());
  const note = async (message: string, change: Partial<DirectorEntry> = {}, level = 'info') => {
    Object.assign(entry, change);
    entry.log.push(line(message, timers.now(), level));
    await context.history.save(entry);
  };
  let lock: WorkspaceLock | undefined;
  try {
    const deadline = timers.now() + waitMs;
    lock = await lockFor(context, run, deadline, note);
    const task = run.task ?? (await handOut(context, run, lock, deadline, note));
    await finish(context, run, task, note);
    await lock.release();
  } catch (error) {
    if (context.signal.aborted) {
      if (!run.task) await lock?.release();
      return;
    }
    await lock?.release();
    await note(`failed: ${errorMessage(error)}`, { state: 'failed', finished_at: iso(timers.now()) }, 'error');
    context.log.warn(`scheduled run ${run.id} failed: ${errorMessage(error)}`);
    await forget(context, run);
  }
}

// The workdir's lock; a workdir another task holds is waited for with backoff until the deadline.
async function lockFor(
  context: RunContext,
  run: ScheduledRun,
  deadline: number,
  note: (message: string) => Promise<void>,
): Promise<WorkspaceLock> {
  for (let delay = LOCK_RETRY_MS.first; ; delay = Math.min(LOCK_RETRY_MS.max, delay * 2)) {
    try {
      return await context.locks.acquire(run.workdir, {
        purpose: `scheduled run ${run.id}`,
        ...(run.task ? { resume: run.task } : {}),
      });
    } catch (error) {
      const retryable = AgencyError.isInstance(error) && error.code === 'workspace_locked' && error.retryable;
      if (!retryable || context.timers.now() + delay > deadline) throw error;
      await note(`waiting ${Math.round(delay / 1000)} s for the workdir: ${errorMessage(error)}`);
      await sleep(delay, context.signal, context.timers);
    }
  }
}

async function handOut(
  context: RunContext,
  run: ScheduledRun,
  lock: WorkspaceLock,
  deadline: number,
  note: (message: string, change?: Partial<DirectorEntry>) => Promise<void>,
): Promise<DispatchedTask> {
  const found = run.placing ? await context.dispatch.find?.({ session_id: run.placing, worker: null }) : undefined;
  const task = found ?? (await dispatchRun(context, run, lock, deadline, note));
  run.task = task;
  await updateRun(context, run.id, { task, placing: null });
  await lock.attach(task);
  await note(`running as ${task.task_id} on ${task.worker.name}${found ? ' (found after a restart)' : ''}`, {
    state: 'running',
    task,
  });
  return task;
}

async function updateRun(context: RunContext, id: string, change: Partial<ScheduledRun>): Promise<void> {
  await context.state.update((state) => ({
    ...state,
    runs: state.runs.map((one) => (one.id === id ? { ...one, ...change } : one)),
  }));
}

// Records the session the run's task will start, then hands it to an idle worker.
async function dispatchRun(
  context: RunContext,
  run: ScheduledRun,
  lock: WorkspaceLock,
  deadline: number,
  note: (message: string, change?: Partial<DirectorEntry>) => Promise<void>,
): Promise<DispatchedTask> {
  if (!run.placing) {
    run.placing = randomUUID();
    await updateRun(context, run.id, { placing: run.placing });
  }
  const waitMs = Math.max(0, deadline - context.timers.now());
  await note(`handing out (waiting up to ${Math.round(waitMs / 1000)} s for an idle worker)`);
  return context.dispatch.dispatch(
    {
      prompt: run.prompt,
      session_id: run.placing,
      workdir: lock.workdir,
      waitMs,
      ...(run.model ? { model: run.model } : {}),
      ...(run.timeout_ms ? { timeout_seconds: Math.ceil(run.timeout_ms / 1000) } : {}),
      ...(run.labels?.length ? { labels: run.labels } : {}),
    },
    {
      signal: context.signal,
      onWait: ({ delayMs, busy }) =>
        void note(
          `no idle worker; trying again in ${Math.round(delayMs / 100) / 10} s (${busy.join('; ') || 'none found'})`,
        ),
    },
  );
}

// Follows the task to its end (ending a session left idle), records the result, and forgets the run.
async function finish(
  context: RunContext,
  run: ScheduledRun,
  task: DispatchedTask,
  note: (message: string, change?: Partial<DirectorEntry>, level?: string) => Promise<void>,
): Promise<void> {
  let outcome = await context.dispatch.settle(task, { signal: context.signal });
  if (outcome.state === 'idle') {
    await context.dispatch.end(task, { signal: context.signal });
    outcome = await context.dispatch.settle(task, { signal: context.signal });
  }
  const result = resultOf(outcome);
  const state = outcome.state === 'completed' ? 'completed' : outcome.state === 'cancelled' ? 'cancelled' : 'failed';
  const how = result.error ? `${state}: ${result.error.type}: ${result.error.message}` : state;
  await note(how, { state, result, finished_at: iso(context.timers.now()) }, state === 'completed' ? 'info' : 'warn');
  context.log.info(`scheduled run ${run.id}: ${how}`);
  await forget(context, run);
}

/** Removes a run from `state.json`. */
export async function forget(context: RunContext, run: ScheduledRun): Promise<void> {
  await context.state.update((state) => ({ ...state, runs: state.runs.filter((one) => one.id !== run.id) }));
}

function resultOf(outcome: DispatchOutcome): EntryResult {
  if (outcome.state === 'lost')
    return { state: 'lost', output: null, error: outcome.error, cost_usd: null, duration_seconds: null };
  const { task } = outcome;
  return {
    state: task.state,
    output: task.output,
    error: task.error,
    cost_usd: task.cost_usd,
    duration_seconds: task.duration_seconds,
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
