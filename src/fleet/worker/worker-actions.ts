// What a worker does with its tasks: take one (a new session, or the next turn of an idle one), cancel it, end it,
// and shut down; `createWorker` (worker.ts) holds the state they share.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AgencyError } from '../../core/errors.ts';
import type { HistoryRecord, WorkerTaskRequest, WorkerTaskState } from '../api/worker-schemas.ts';
import { checkTaskEnv } from './executor-env.ts';
import { composePrompt } from './instructions.ts';
import { addLine, isFinal, isRunning, previewOf, seconds } from './task-record.ts';
import { type LiveTask, startTurn, stopTurn, type TurnContext } from './task-turn.ts';
import { taskWorkdir } from './task-workdir.ts';
import type { WorkerDeps, WorkerPhase } from './worker.ts';

/** The state a worker's actions share. */
export type WorkerState = {
  deps: WorkerDeps;
  now: () => number;
  newTaskId: () => string;
  newSessionId: () => string;
  /** The tasks held: the running one and the idle sessions. */
  tasks: Map<string, LiveTask>;
  phase: WorkerPhase;
  /** What a turn runs with, once the executor passed its check. */
  context: TurnContext | undefined;
  /** The task whose executor runs. */
  current: LiveTask | undefined;
  draining: Promise<void> | undefined;
  /** Whether the history was read (and lost tasks rewritten). */
  recovered: boolean;
};

const iso = (state: WorkerState) => new Date(state.now()).toISOString();

// What a turn runs with, when the worker can take one now: it is ready and nothing runs.
function takingTasks(state: WorkerState): TurnContext {
  const { phase, context, current } = state;
  if (phase === 'stopping' || !context)
    throw new AgencyError(
      'worker_unavailable',
      phase === 'stopping'
        ? 'The worker is shutting down and takes no more tasks'
        : 'The worker is starting: its config and executor are being checked; retry in a moment',
      { details: { state: phase === 'stopping' ? 'stopping' : 'starting' } },
    );
  if (current)
    throw new AgencyError('agent_busy', `Agent is currently processing ${current.record.task_id}`, {
      details: { current_task: current.record.task_id },
    });
  return context;
}

/** A task's record, held or from the history. @throws AgencyError `task_not_found` */
export async function storedRecord(state: WorkerState, taskId: string): Promise<HistoryRecord> {
  const record = state.tasks.get(taskId)?.record ?? (await state.deps.history.read(taskId));
  if (!record) throw new AgencyError('task_not_found', `Task ${taskId} not found`, { details: { task_id: taskId } });
  return record;
}

// A task held (running or idle); one that is not has finished (task_finished) or never was (task_not_found).
async function heldTask(state: WorkerState, taskId: string): Promise<LiveTask> {
  const task = state.tasks.get(taskId);
  if (task) return task;
  const record = await storedRecord(state, taskId);
  throw new AgencyError('task_finished', `Task ${record.task_id} has already completed`, {
    details: { task_id: record.task_id, final_state: record.state },
  });
}

// An idle session's task, for continue and end. @throws AgencyError `task_active` while it runs
async function idleTask(state: WorkerState, taskId: string): Promise<LiveTask> {
  const task = await heldTask(state, taskId);
  const { record } = task;
  if (isRunning(record.state))
    throw new AgencyError(
      'task_active',
      `Task ${record.task_id} is ${record.state}; wait for it to be idle, or cancel it`,
      {
        details: { task_id: record.task_id },
      },
    );
  return task;
}

// Runs a turn with the worker reserved for it from the first moment, so a second request is refused at once, and
// the record on disk before the answer, so a worker killed from then on leaves a trace of it. That write is not
// fsynced: a killed process's writes survive in the page cache, and the turn's outcome is written durably.
async function launch(
  state: WorkerState,
  turns: TurnContext,
  task: LiveTask,
  prompts: { asked: string; sent: string },
  resume: boolean,
): Promise<void> {
  const { record } = task;
  state.current = task;
  record.state = 'working';
  record.started_at ??= iso(state);
  addLine(record, { time: iso(state), level: 'info', message: `turn ${record.turns}: ${previewOf(prompts.asked)}` });
  const saved = state.deps.history.save(record, { durable: false });
  const onSettled = () => {
    if (state.current === task) state.current = undefined;
    if (isFinal(record.state)) state.tasks.delete(record.task_id);
  };
  void startTurn(turns, task, prompts.sent, resume, { saved, onSettled });
  await saved;
  state.deps.lifecycle.info(`task ${record.task_id} turn ${record.turns} started`, {
    task_id: record.task_id,
    session_id: record.session_id,
  });
}

/** What a queue adds to a task it gives a worker. */
export type SubmitOptions = {
  /** The task's id in the queue. @default one the worker makes */
  taskId?: string | undefined;
  /** The session directory the queue placed (on shared storage), used as it is. @default `<session_dir>/<id>/` */
  sessionDir?: string | undefined;
  /** The task was taken over from a lost worker with this epoch: its executor may continue the lost run. */
  retake?: { epoch: number } | undefined;
};

/** `POST /task`: a new task, in a new session or the one given. */
export async function submitTask(
  state: WorkerState,
  request: WorkerTaskRequest,
  { taskId, sessionDir, retake }: SubmitOptions = {},
): Promise<{ task_id: string; session_id: string; status: WorkerTaskState }> {
  const { config, redactor, instructions } = state.deps;
  const turns = takingTasks(state);
  const env = request.env ?? {};
  checkTaskEnv(env, config, redactor);
  const workdir = request.workdir === undefined ? sessionDir : await taskWorkdir(request.workdir, config);
  const sessionId = request.session_id ?? state.newSessionId();
  // A session this worker has run before continues (Claude Code's --resume); any other starts fresh.
  const resume = request.session_id != null && existsSync(join(config.sessionDir, sessionId));
  const record = newRecord(
    taskId ?? state.newTaskId(),
    sessionId,
    config.executor,
    redactor.redactText(request.prompt),
  );
  if (workdir) record.workdir = workdir;
  const task: LiveTask = {
    record,
    model: request.model ?? config.model,
    timeoutMs: request.timeout_seconds ? request.timeout_seconds * 1_000 : config.timeoutMs,
    env,
    workdir,
    retake,
  };
  state.tasks.set(record.task_id, task);
  const prompt = composePrompt({ instructions, project: request.project, prompt: request.prompt });
  await launch(state, turns, task, { asked: record.prompt, sent: prompt }, resume);
  return { task_id: record.task_id, session_id: sessionId, status: record.state };
}

/** `POST /task/:id/cancel`: an idle session is cancelled at once; a running task is stopped. */
export async function cancelTask(
  state: WorkerState,
  taskId: string,
): Promise<{ task_id: string; state: WorkerTaskState; message: string }> {
  const { history, lifecycle } = state.deps;
  const task = await heldTask(state, taskId);
  const { record } = task;
  if (record.state === 'cancelling')
    return { task_id: taskId, state: record.state, message: 'Task cancellation already in progress' };
  if (record.state === 'idle') {
    close(state, task, 'cancelled', { type: 'cancelled', message: 'Cancelled by request while idle' });
    await history.save(record);
    lifecycle.info(`task ${taskId} cancelled while idle`);
    return { task_id: taskId, state: record.state, message: 'Task cancelled' };
  }
  record.state = 'cancelling';
  stopTurn(task, 'cancel');
  lifecycle.info(`task ${taskId} cancelling`);
  await history.save(record);
  return {
    task_id: taskId,
    state: 'cancelling',
    message: 'Task cancellation initiated: SIGTERM to the executor now, SIGKILL after 10 s',
  };
}

/** `POST /task/:id/continue`: the next turn of an idle session. */
export async function continueTask(
  state: WorkerState,
  taskId: string,
  prompt: string,
): Promise<{ task_id: string; session_id: string; state: WorkerTaskState }> {
  const task = await idleTask(state, taskId);
  const turns = takingTasks(state);
  task.record.turns += 1;
  await launch(state, turns, task, { asked: state.deps.redactor.redactText(prompt), sent: prompt }, true);
  return { task_id: taskId, session_id: task.record.session_id, state: task.record.state };
}

/** `POST /task/:id/end`: an idle session's task is completed with its last output. */
export async function endTask(
  state: WorkerState,
  taskId: string,
): Promise<{ task_id: string; state: WorkerTaskState; output: string | null }> {
  const task = await idleTask(state, taskId);
  close(state, task, 'completed', null);
  await state.deps.history.save(task.record);
  state.deps.lifecycle.info(`task ${taskId} ended: completed`);
  return { task_id: taskId, state: task.record.state, output: task.record.output };
}

/** `POST /shutdown`: stops taking tasks and drains (see `Worker.shutdown`). */
export function shutdownWorker(state: WorkerState, { drainMs, force }: { drainMs: number; force: boolean }) {
  if (state.draining) return state.draining;
  const { current } = state;
  if (current && !force)
    throw new AgencyError('task_active', `Task ${current.record.task_id} is running. Use force=true to terminate.`, {
      details: { task_id: current.record.task_id },
    });
  state.phase = 'stopping';
  state.deps.lifecycle.info(
    `shutting down${current ? `: task ${current.record.task_id} has ${drainMs / 1_000} s to finish` : ''}`,
  );
  state.draining = drain(state, current, drainMs);
  return state.draining;
}

function close(
  state: WorkerState,
  task: LiveTask,
  final: 'completed' | 'cancelled',
  error: HistoryRecord['error'],
): void {
  const { record } = task;
  record.state = final;
  record.error = error;
  record.completed_at = iso(state);
  if (record.started_at) record.duration_seconds = seconds(state.now() - Date.parse(record.started_at));
  state.tasks.delete(record.task_id);
}

// Gives a running task `drainMs` to finish, then cancels it; resolves once nothing runs.
async function drain(state: WorkerState, task: LiveTask | undefined, drainMs: number): Promise<void> {
  const done = task?.run?.done;
  if (!task || !done) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), drainMs)));
  if ((await Promise.race([done, late])) === 'late') {
    state.deps.lifecycle.warn(`task ${task.record.task_id} did not finish within the drain time; cancelling it`);
    stopTurn(task, 'shutdown');
    task.record.state = 'cancelling';
    await done;
  }
  clearTimeout(timer);
}

function newRecord(
  taskId: string,
  sessionId: string,
  executor: HistoryRecord['executor'],
  prompt: string,
): HistoryRecord {
  return {
    task_id: taskId,
    state: 'queued',
    executor,
    exit_code: null,
    started_at: null,
    completed_at: null,
    duration_seconds: null,
    output: null,
    error: null,
    session_id: sessionId,
    token_usage: null,
    cost_usd: null,
    turns: 1,
    prompt,
    log: [],
    stdout: '',
    stderr: '',
  };
}
