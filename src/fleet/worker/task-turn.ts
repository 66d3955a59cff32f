import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { EXECUTOR_SCOPE } from '../../config/instance-credentials.ts';
import type { WorkerConfig } from '../../config/worker-config.ts';
import { errorMessage } from '../../core/errors.ts';
import type { Redactor } from '../../core/redact.ts';
import type { CredentialBroker } from '../../credentials/credential-broker.ts';
import type { HistoryRecord } from '../api/worker-schemas.ts';
import type { Executor, ExecutorEvent, ExecutorResult } from '../executors/executor.ts';
import { executorEnv } from './executor-env.ts';
import type { HistoryStore } from './history-store.ts';
import type { LifecycleLog } from './lifecycle-log.ts';
import { addLine, appendTail, type LogLine, previewOf, seconds } from './task-record.ts';

/** Why a run was stopped from outside: a cancel request, its timeout, or the worker shutting down. */
export type StopReason = 'cancel' | 'timeout' | 'shutdown';

/** A task the worker holds in memory: running, or an idle session waiting for `continue` or `end`. */
export type LiveTask = {
  record: HistoryRecord;
  model: string | undefined;
  timeoutMs: number;
  /** The task's own `env`; kept in memory only, never written to history. */
  env: Record<string, string>;
  /**
   * The directory `POST /task` named (its real path), or the session directory a queue placed on shared storage;
   * undefined: `<session_dir>/<session id>/`.
   */
  workdir?: string | undefined;
  /** Taken over from a lost worker: its next run may continue the lost one (see `ExecutorRequest.retake`). */
  retake?: { epoch: number } | undefined;
  /** The current run of its executor, while there is one. */
  run?: { controller: AbortController; stop?: StopReason; text: string; done: Promise<void> } | undefined;
};

/** What a turn needs from the worker. */
export type TurnContext = {
  config: WorkerConfig;
  executor: Executor;
  history: HistoryStore;
  lifecycle: LifecycleLog;
  redactor: Redactor;
  credentials: CredentialBroker | undefined;
  hostEnv: Readonly<Record<string, string | undefined>>;
  home: string;
  now: () => number;
  /** How long a stopped executor has to return before the worker gives up on it. */
  stopGraceMs: number;
  /**
   * Told of each line an executor's event adds to a task's record, at once, with the agent.events type it stands
   * for (`run.started`, `tool.call`, `tool.result`, `warning`): a queue-mode worker mirrors it for the live timeline.
   */
  onLine?: ((taskId: string, line: LogLine & { type: string }) => void) | undefined;
};

/**
 * Starts one run of the executor for a task whose record is `working`, once `saved` (its record on disk) resolves: a
 * new session in a fresh directory, or (`resume`) the same session in its directory. Sets `task.run` at once, so a
 * cancel that comes before the process starts still stops it. `onSettled` is called as soon as the record has its
 * new state (idle, or final), before it is saved. The returned promise (also `task.run.done`) never rejects.
 */
export function startTurn(
  context: TurnContext,
  task: LiveTask,
  prompt: string,
  resume: boolean,
  { saved, onSettled }: { saved: Promise<void>; onSettled: () => void },
): Promise<void> {
  const controller = new AbortController();
  const run: NonNullable<LiveTask['run']> = { controller, text: '', done: Promise.resolve() };
  task.run = run;
  run.done = runTurn(context, task, run, { prompt, resume, saved, onSettled }).catch((error: unknown) => {
    context.lifecycle.error(`task ${task.record.task_id}: ${errorMessage(error)}`);
  });
  return run.done;
}

/** Stops a task's run: its executor's signal is aborted (SIGTERM to the process tree, SIGKILL 10 s later). */
export function stopTurn(task: LiveTask, reason: StopReason): void {
  if (!task.run || task.run.stop) return;
  task.run.stop = reason;
  task.run.controller.abort(reason);
}

async function runTurn(
  context: TurnContext,
  task: LiveTask,
  run: NonNullable<LiveTask['run']>,
  {
    prompt,
    resume,
    saved,
    onSettled,
  }: { prompt: string; resume: boolean; saved: Promise<void>; onSettled: () => void },
): Promise<void> {
  const { config, executor, history, lifecycle, redactor, now } = context;
  const { record } = task;
  const timer = setTimeout(() => stopTurn(task, 'timeout'), task.timeoutMs);
  const usage = { input: 0, output: 0, costUsd: undefined as number | undefined, seen: false };
  const onEvent = (event: ExecutorEvent) => {
    if (task.run !== run) return;
    if (event.type === 'text') run.text = appendTail(run.text, event.text);
    else if (event.type === 'usage') {
      // Executors report a run's usage so far; the last report counts.
      usage.input = event.input;
      usage.output = event.output;
      usage.costUsd = event.costUsd;
      usage.seen = true;
    } else {
      // Also a lifecycle line of the worker, naming the task: a director following it shows the latest one.
      const line = eventLine(event, now(), redactor);
      addLine(record, line);
      lifecycle[line.level === 'warn' ? 'warn' : 'info'](`task ${record.task_id}: ${line.message}`);
      context.onLine?.(record.task_id, { ...line, type: EVENT_TYPE_OF[event.type] });
    }
  };
  const workdir = task.workdir ?? join(config.sessionDir, record.session_id);
  // Only the first run after the take continues the lost one; later turns are new runs.
  const retake = task.retake;
  task.retake = undefined;
  let result: ExecutorResult;
  let credentials: Awaited<ReturnType<CredentialBroker['credentialsFor']>> | undefined;
  try {
    // The record reaches the disk while the credentials and the session directory are made ready; a task's own
    // workdir is the caller's and is used as it is.
    await Promise.all([
      saved,
      context.credentials?.credentialsFor(EXECUTOR_SCOPE).then((lent) => (credentials = lent)),
      task.workdir === undefined ? prepareSessionDir(workdir, resume) : undefined,
    ]);
    const env = executorEnv({
      hostEnv: context.hostEnv,
      home: context.home,
      configEnv: config.env,
      taskEnv: task.env,
      credentials: credentials?.env ?? {},
    });
    // Stopped before its process started: there is nothing to run.
    const running = run.controller.signal.aborted
      ? Promise.resolve({ exitCode: null, output: '', stdout: '', stderr: '' })
      : executor.run({
          taskId: record.task_id,
          sessionId: record.session_id,
          resume,
          retake,
          prompt,
          model: task.model,
          workdir,
          timeoutMs: task.timeoutMs,
          env,
          signal: run.controller.signal,
          onEvent,
        });
    result = await settleOrGiveUp(running, run, context.stopGraceMs);
  } catch (error) {
    result = {
      exitCode: null,
      output: run.text,
      error: { type: 'internal', message: errorMessage(error) },
      stdout: '',
      stderr: '',
    };
  } finally {
    clearTimeout(timer);
    await credentials?.dispose();
  }
  task.run = undefined;
  finishTurn(task, result, run, usage, now(), redactor);
  onSettled();
  lifecycle[record.state === 'failed' ? 'error' : 'info'](turnSummary(record), { task_id: record.task_id });
  await history.save(record);
}

// An executor that does not return within the grace period after being stopped is given up on, so the worker is
// never stuck on it.
async function settleOrGiveUp(
  running: Promise<ExecutorResult>,
  run: NonNullable<LiveTask['run']>,
  graceMs: number,
): Promise<ExecutorResult> {
  running.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<undefined>((resolve) => {
    const start = () => (timer = setTimeout(() => resolve(undefined), graceMs));
    if (run.controller.signal.aborted) start();
    else run.controller.signal.addEventListener('abort', start, { once: true });
  });
  try {
    const result = await Promise.race([running, gaveUp]);
    return (
      result ?? {
        exitCode: null,
        output: run.text,
        error: {
          type: 'executor_error',
          message: `The executor did not stop within ${graceMs / 1_000} s of being stopped; the worker moved on`,
        },
        stdout: '',
        stderr: '',
      }
    );
  } finally {
    clearTimeout(timer);
  }
}

function finishTurn(
  task: LiveTask,
  result: ExecutorResult,
  run: NonNullable<LiveTask['run']>,
  usage: { input: number; output: number; costUsd: number | undefined; seen: boolean },
  now: number,
  redactor: Redactor,
): void {
  const { record } = task;
  const turnUsage = result.usage ?? (usage.seen ? usage : undefined);
  if (turnUsage)
    record.token_usage = {
      input: (record.token_usage?.input ?? 0) + turnUsage.input,
      output: (record.token_usage?.output ?? 0) + turnUsage.output,
    };
  const cost = result.costUsd ?? usage.costUsd;
  if (cost !== undefined) record.cost_usd = (record.cost_usd ?? 0) + cost;
  record.exit_code = result.exitCode;
  record.output = redactor.redactText(result.output || run.text);
  record.stdout = appendTail(record.stdout, redactor.redactText(result.stdout));
  record.stderr = appendTail(record.stderr, redactor.redactText(result.stderr));
  record.duration_seconds = record.started_at ? seconds(now - Date.parse(record.started_at)) : null;
  const stop = run.stop;
  if (stop === 'cancel' || stop === 'shutdown') {
    record.state = 'cancelled';
    record.error = {
      type: 'cancelled',
      message: stop === 'cancel' ? 'Cancelled by request' : 'Cancelled: the worker shut down',
    };
  } else if (stop === 'timeout' || result.error?.type === 'timeout') {
    record.state = 'failed';
    record.error = { type: 'timeout', message: `Task exceeded timeout of ${task.timeoutMs / 1_000} seconds` };
  } else if (result.error) {
    record.state = 'failed';
    record.error = { type: result.error.type, message: redactor.redactText(result.error.message) };
  } else record.state = 'idle';
  if (record.state !== 'idle') record.completed_at = new Date(now).toISOString();
}

function turnSummary(record: HistoryRecord): string {
  const id = record.task_id;
  if (record.state === 'idle') return `task ${id} turn ${record.turns} done; idle, waiting for continue or end`;
  if (record.error) return `task ${id} ${record.state}: ${record.error.type}: ${record.error.message}`;
  return `task ${id} ${record.state}`;
}

// The agent.events type each executor event that makes a line stands for.
const EVENT_TYPE_OF = {
  started: 'run.started',
  'tool.call': 'tool.call',
  'tool.result': 'tool.result',
  warning: 'warning',
} as const;

function eventLine(event: Exclude<ExecutorEvent, { type: 'text' | 'usage' }>, now: number, redactor: Redactor) {
  const time = new Date(now).toISOString();
  if (event.type === 'started')
    return {
      time,
      level: 'info',
      message: redactor.redactText(`${event.message}${event.pid ? ` (pid ${event.pid})` : ''}`),
    };
  if (event.type === 'warning') return { time, level: 'warn', message: redactor.redactText(event.message) };
  if (event.type === 'tool.call')
    return {
      time,
      level: 'info',
      message: redactor.redactText(`tool ${event.tool}: ${previewOf(JSON.stringify(event.input) ?? '')}`),
    };
  return {
    time,
    level: event.ok ? 'info' : 'warn',
    message: redactor.redactText(`tool ${event.tool} ${event.ok ? 'done' : 'failed'}`),
  };
}

// A new session starts in an empty directory, whatever an earlier one left under its id; a continued one keeps its
// files.
async function prepareSessionDir(workdir: string, resume: boolean): Promise<void> {
  if (!resume) await rm(workdir, { recursive: true, force: true });
  await mkdir(workdir, { recursive: true, mode: 0o700 });
}
