import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AgencyError } from '../../core/errors.ts';
import { createIdGenerator } from '../../core/ids.ts';
import type { WorkerTaskRequest, HistoryRecord, WorkerTask, WorkerTaskState } from '../api/worker-schemas.ts';
import type { Executor } from '../executors/executor.ts';
import { checkTaskEnv } from './executor-env.ts';
import { composePrompt } from './instructions.ts';
import { addLine, isFinal, isRunning, previewOf, seconds, type TaskSummary, toWorkerTask } from './task-record.ts';
import { type LiveTask, startTurn, stopTurn, type TurnContext } from './task-turn.ts';
import { taskWorkdir } from './task-workdir.ts';

/** What a worker is built from; the executor comes later, once it has passed its check (see {@link Worker.ready}). */
export type WorkerDeps = Omit<TurnContext, 'executor' | 'stopGraceMs' | 'now'> & {
  /** Put before every new task's prompt. */
  instructions: string;
  now?: () => number;
  newTaskId?: () => string;
  newSessionId?: () => string;
  /** @default 15000: 10 s between SIGTERM and SIGKILL, and some slack */
  stopGraceMs?: number;
};

/** Where the worker is: `starting` until {@link Worker.ready}, `stopping` once shutdown began. */
export type WorkerPhase = 'starting' | 'ready' | 'stopping';

/** The worker's tasks: one runs at a time; finished ones are in its history. */
export type Worker = {
  readonly phase: WorkerPhase;
  /** The task whose executor runs, if any. */
  active(): LiveTask | undefined;
  /** Rewrites tasks left running by a previous process as `worker_lost`, and takes back its idle sessions. */
  recover(): Promise<{ lost: number; idle: number }>;
  /** Starts taking tasks with this executor. */
  ready(executor: Executor): void;
  submit(request: WorkerTaskRequest): Promise<{ task_id: string; session_id: string; status: WorkerTaskState }>;
  task(taskId: string): Promise<WorkerTask>;
  record(taskId: string): Promise<HistoryRecord>;
  cancel(taskId: string): Promise<{ task_id: string; state: WorkerTaskState; message: string }>;
  continueTask(
    taskId: string,
    prompt: string,
  ): Promise<{ task_id: string; session_id: string; state: WorkerTaskState }>;
  end(taskId: string): Promise<{ task_id: string; state: WorkerTaskState; output: string | null }>;
  list(): WorkerTask[];
  history(page: number, limit: number): { items: TaskSummary[]; total: number };
  /**
   * Stops taking tasks and drains: a running task gets `drainMs` to finish on its own, then is cancelled. Refused
   * while a task runs unless `force`. Resolves once nothing runs.
   *
   * @throws AgencyError `task_active` (→ 409 `task_in_progress`) when a task runs and `force` is not set.
   */
  shutdown(options: { drainMs: number; force: boolean }): Promise<void>;
};

const newWorkerTaskId = (() => {
  const ids = createIdGenerator();
  return () => `task-${ids('task').slice(5).toLowerCase()}`;
})();

/** Creates a worker's task engine (the HTTP routes are in `worker-app.ts`). */
export function createWorker(deps: WorkerDeps): Worker {
  const { config, history, lifecycle, redactor } = deps;
  const now = deps.now ?? Date.now;
  const newTaskId = deps.newTaskId ?? newWorkerTaskId;
  const newSessionId = deps.newSessionId ?? randomUUID;
  const tasks = new Map<string, LiveTask>();
  const credentialVariables = new Set(Object.values(config.credentials));
  let phase: WorkerPhase = 'starting';
  let context: TurnContext | undefined;
  let current: LiveTask | undefined;
  let draining: Promise<void> | undefined;
  let recovered = false;

  const iso = () => new Date(now()).toISOString();
  const takingTasks = (): TurnContext => {
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
  };
  const held = (taskId: string): LiveTask | undefined => tasks.get(taskId);
  const stored = async (taskId: string): Promise<HistoryRecord> => {
    const record = held(taskId)?.record ?? (await history.read(taskId));
    if (!record) throw new AgencyError('task_not_found', `Task ${taskId} not found`, { details: { task_id: taskId } });
    return record;
  };
  const finished = (record: HistoryRecord) =>
    new AgencyError('task_finished', `Task ${record.task_id} has already completed`, {
      details: { task_id: record.task_id, final_state: record.state },
    });
  const running = (record: HistoryRecord) =>
    new AgencyError('task_active', `Task ${record.task_id} is ${record.state}; wait for it to be idle, or cancel it`, {
      details: { task_id: record.task_id },
    });

  // Runs a turn with the worker reserved for it from the first moment, so a second request is refused at once, and
  // the record on disk before the answer, so a worker killed from then on leaves a trace of it.
  const launch = async (
    turns: TurnContext,
    task: LiveTask,
    prompts: { asked: string; sent: string },
    resume: boolean,
  ) => {
    const { record } = task;
    current = task;
    record.state = 'working';
    record.started_at ??= iso();
    addLine(record, { time: iso(), level: 'info', message: `turn ${record.turns}: ${previewOf(prompts.asked)}` });
    const saved = history.save(record);
    const onSettled = () => {
      if (current === task) current = undefined;
      if (isFinal(record.state)) tasks.delete(record.task_id);
    };
    void startTurn(turns, task, prompts.sent, resume, { saved, onSettled });
    await saved;
    lifecycle.info(`task ${record.task_id} turn ${record.turns} started`, {
      task_id: record.task_id,
      session_id: record.session_id,
    });
  };

  return {
    get phase() {
      return phase;
    },
    active: () => current,
    async recover() {
      const { lost, idle } = await history.recover();
      for (const record of lost) lifecycle.warn(`task ${record.task_id} was lost with the previous worker process`);
      for (const record of idle)
        tasks.set(record.task_id, {
          record,
          model: config.model,
          timeoutMs: config.timeoutMs,
          env: {},
          workdir: record.workdir ?? undefined,
        });
      recovered = true;
      return { lost: lost.length, idle: idle.length };
    },
    ready(executor) {
      context = { ...deps, executor, now, stopGraceMs: deps.stopGraceMs ?? 15_000 };
      if (phase === 'starting') phase = 'ready';
    },
    async submit(request) {
      const turns = takingTasks();
      const env = request.env ?? {};
      checkTaskEnv(env, credentialVariables, redactor);
      const workdir = request.workdir === undefined ? undefined : await taskWorkdir(request.workdir, config);
      const sessionId = request.session_id ?? newSessionId();
      // A session this worker has run before continues (Claude Code's --resume); any other starts fresh.
      const resume = request.session_id != null && existsSync(join(config.sessionDir, sessionId));
      const record = newRecord(newTaskId(), sessionId, config.executor, redactor.redactText(request.prompt));
      if (workdir) record.workdir = workdir;
      const task: LiveTask = {
        record,
        model: request.model ?? config.model,
        timeoutMs: request.timeout_seconds ? request.timeout_seconds * 1_000 : config.timeoutMs,
        env,
        workdir,
      };
      tasks.set(record.task_id, task);
      const prompt = composePrompt({
        instructions: deps.instructions,
        project: request.project,
        prompt: request.prompt,
      });
      await launch(turns, task, { asked: record.prompt, sent: prompt }, resume);
      return { task_id: record.task_id, session_id: sessionId, status: record.state };
    },
    async task(taskId) {
      return toWorkerTask(await stored(taskId), now());
    },
    record: stored,
    async cancel(taskId) {
      const task = held(taskId);
      if (!task) throw finished(await stored(taskId));
      const { record } = task;
      if (record.state === 'cancelling')
        return { task_id: taskId, state: record.state, message: 'Task cancellation already in progress' };
      if (record.state === 'idle') {
        close(task, 'cancelled', { type: 'cancelled', message: 'Cancelled by request while idle' });
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
    },
    async continueTask(taskId, prompt) {
      const task = held(taskId);
      if (!task) throw finished(await stored(taskId));
      if (isRunning(task.record.state)) throw running(task.record);
      const turns = takingTasks();
      task.record.turns += 1;
      await launch(turns, task, { asked: redactor.redactText(prompt), sent: prompt }, true);
      return { task_id: taskId, session_id: task.record.session_id, state: task.record.state };
    },
    async end(taskId) {
      const task = held(taskId);
      if (!task) throw finished(await stored(taskId));
      if (isRunning(task.record.state)) throw running(task.record);
      close(task, 'completed', null);
      await history.save(task.record);
      lifecycle.info(`task ${taskId} ended: completed`);
      return { task_id: taskId, state: task.record.state, output: task.record.output };
    },
    list() {
      return [...tasks.values()]
        .map((task) => toWorkerTask(task.record, now()))
        .sort((a, b) => (a.task_id < b.task_id ? 1 : -1));
    },
    history(page, limit) {
      if (!recovered)
        throw new AgencyError('worker_unavailable', 'The worker is starting: its history is being read', {
          details: { state: 'starting' },
        });
      return history.page(page, limit);
    },
    shutdown({ drainMs, force }) {
      if (draining) return draining;
      if (current && !force)
        throw new AgencyError(
          'task_active',
          `Task ${current.record.task_id} is running. Use force=true to terminate.`,
          { details: { task_id: current.record.task_id } },
        );
      phase = 'stopping';
      lifecycle.info(
        `shutting down${current ? `: task ${current.record.task_id} has ${drainMs / 1_000} s to finish` : ''}`,
      );
      draining = drain(current, drainMs);
      return draining;
    },
  };

  function close(task: LiveTask, state: 'completed' | 'cancelled', error: HistoryRecord['error']): void {
    task.record.state = state;
    task.record.error = error;
    task.record.completed_at = iso();
    if (task.record.started_at) task.record.duration_seconds = seconds(now() - Date.parse(task.record.started_at));
    tasks.delete(task.record.task_id);
  }

  async function drain(task: LiveTask | undefined, drainMs: number): Promise<void> {
    const done = task?.run?.done;
    if (!task || !done) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), drainMs)));
    if ((await Promise.race([done, late])) === 'late') {
      lifecycle.warn(`task ${task.record.task_id} did not finish within the drain time; cancelling it`);
      stopTurn(task, 'shutdown');
      task.record.state = 'cancelling';
      await done;
    }
    clearTimeout(timer);
  }
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
