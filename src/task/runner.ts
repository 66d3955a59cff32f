import { AgencyError } from '../core/errors.ts';
import { createIdGenerator } from '../core/ids.ts';
import { defaultRedactor } from '../core/redact.ts';
import { type RunEnd, traceTask } from '../obs/agent-spans.ts';
import type { StopReason } from './contracts/state.ts';
import { finalizeRun } from './finalize.ts';
import { type Loop, StepPause } from './loop.ts';
import { loopContextOf } from './loop-context.ts';
import { gatherPlanActVerify } from './loops/gather-plan-act-verify.ts';
import { planActReflect } from './loops/plan-act-reflect.ts';
import { type DoTaskResult, type ResultView, viewOf } from './result.ts';
import { buildPhaseContext } from './run-context.ts';
import { frameLogger } from './run-log.ts';
import { runPrompts } from './run-prompts.ts';
import { type Live, type RunnerCore, startRun, type TaskHandle, taskIdOf, type TaskRef } from './run-core.ts';
import { type ResumeOptions, resumeRun } from './run-resume.ts';
import { isRunStop } from './run-stop.ts';
import type { RunnerOptions } from './runner-options.ts';
import type { RunListener, Session } from './session.ts';
import { watchStopFile } from './stop-file.ts';
import type { TaskSpec } from './task-spec.ts';

export type { MemoryContext, RunnerOptions } from './runner-options.ts';
export type { TaskHandle, TaskRef } from './run-core.ts';
export type { ResumeOptions } from './run-resume.ts';
export { DEFAULT_PERSONA } from './run-context.ts';

/** The outcome of `stepOnce`. */
export type StepOnceResult = { done: false; step: string } | { done: true; result: DoTaskResult };

/** Where an open run is, from `runner.status`. */
export type RunStatus = {
  taskId: string;
  root: string;
  phase: string;
  status: 'running' | 'waiting_approval' | 'completed' | 'failed' | 'stopped';
  lastStepId: string | null;
  lastSeq: number;
  /** The stop asked for, if any, not yet reached. */
  stopping: StopReason | null;
};

/** Runs governed tasks. */
export type Runner = {
  /** Starts a task and runs it to the end. */
  doTask(root: string, spec?: TaskSpec, options?: { view?: ResultView; signal?: AbortSignal }): Promise<DoTaskResult>;
  /**
   * Prepares a run: checks the folder, takes the lock, writes `spec.json` and the first state. `taskId` gives the
   * run an id its caller already handed out (a server names the task folder after it). @default a new `task_` id
   */
  startTask(root: string, spec?: TaskSpec, options?: { signal?: AbortSignal; taskId?: string }): Promise<TaskHandle>;
  /**
   * Runs a started or resumed task to the end. The run is then released: the runner keeps nothing of it, and the
   * folder is the record (`resume` reopens it).
   */
  run(task: TaskRef, options?: { view?: ResultView }): Promise<DoTaskResult>;
  /** Runs until one more step completes, then pauses (the lock stays held); call again to go on. */
  stepOnce(task: TaskRef): Promise<StepOnceResult>;
  /**
   * Asks a run to stop with `reason`: a step, a model call, a tool or an approval wait in flight is cut short within
   * a second, the stop is journaled, and the run can be resumed. @default reason 'stopped'
   */
  stop(task: TaskRef, reason?: StopReason): boolean;
  /** Where an open run is; undefined for a task that is not open in this runner (never started here, or finished). */
  status(task: TaskRef): RunStatus | undefined;
  /**
   * Reopens a run from its folder alone (the journal, checked against `spec.json` and the step files). A run that
   * was not finished on purpose continues: after a crash, a stop, Ctrl-C, a budget, an expired approval or an error.
   */
  resume(root: string, options?: ResumeOptions): Promise<TaskHandle>;
  /**
   * Receives every journaled frame of every run of this runner, or of one task's run. Returns the unsubscriber.
   * @example
   * const off = runner.subscribe('task_01J…', (frame) => console.log(frame.seq, frame.type));
   */
  subscribe(listener: RunListener): () => void;
  subscribe(task: TaskRef, listener: RunListener): () => void;
};

/**
 * Creates a runner of governed tasks: Gather → Plan → Act → Verify by default, in a `task/` + `progress/` folder,
 * with signed plans, file approvals, enforced budgets, a durable journal and resume after a crash.
 *
 * @example
 * const runner = createRunner({ model: 'openai:gpt-4o', tools: (paths) => builtinTools(paths) });
 * const result = await runner.doTask('./my-task', { approvals: { mode: 'auto' } });
 */
export function createRunner(options: RunnerOptions = {}): Runner {
  const now = options.deps?.now ?? Date.now;
  const core: RunnerCore = {
    options,
    now,
    newId: options.deps?.newId ?? createIdGenerator({ now }),
    listeners: new Set<RunListener>(),
    redactor: options.redactor ?? defaultRedactor,
    live: new Map<string, Live>(),
    loops: new Map<string, Loop>(
      [gatherPlanActVerify, planActReflect(), ...(options.loops ?? [])].map((loop) => [loop.name, loop]),
    ),
  };
  if (options.logger) core.listeners.add(frameLogger(options.logger));
  return {
    async doTask(root, spec = {}, { view = 'summary', signal } = {}) {
      const handle = await this.startTask(root, spec, signal ? { signal } : {});
      return this.run(handle, { view });
    },
    startTask: (root, spec = {}, { signal, taskId } = {}) => startRun(core, root, spec, signal, taskId),
    run: async (handle, { view = 'summary' } = {}) => {
      const outcome = await executeRun(core, handle);
      if (!outcome.done) throw new AgencyError('internal', 'run() paused unexpectedly');
      return viewOf(outcome.result, view);
    },
    stepOnce: (handle) => executeRun(core, handle, 1),
    stop(task, reason = 'stopped') {
      const entry = core.live.get(taskIdOf(task));
      entry?.session.requestStop(reason);
      return entry !== undefined;
    },
    status: (task) => statusOf(core.live.get(taskIdOf(task))),
    resume: (root, resumeOptions = {}) => resumeRun(core, root, resumeOptions),
    subscribe(first: TaskRef | RunListener, second?: RunListener) {
      const listener: RunListener =
        typeof first === 'function'
          ? first
          : (frame, taskId) => {
              if (taskId === taskIdOf(first)) second?.(frame, taskId);
            };
      core.listeners.add(listener);
      return () => core.listeners.delete(listener);
    },
  };
}

async function executeRun(core: RunnerCore, task: TaskRef, stepLimit?: number): Promise<StepOnceResult> {
  const entry = core.live.get(taskIdOf(task));
  if (!entry)
    throw new AgencyError(
      'invalid_argument',
      `Task ${taskIdOf(task)} is not open in this runner: start it with startTask, or reopen it with resume`,
    );
  const traced = { id: entry.session.spec.task_id, loop: entry.loop.name, redactor: core.redactor };
  return traceTask(traced, () => runEntry(core, entry, stepLimit), taskEnd);
}

// What a governed run's span records of how it ended; a run paused by stepOnce has not ended.
function taskEnd(outcome: StepOnceResult): RunEnd | undefined {
  if (!outcome.done) return undefined;
  const { finishReason, error, usage } = outcome.result;
  return { finishReason, error, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
}

async function runEntry(core: RunnerCore, entry: Live, stepLimit: number | undefined): Promise<StepOnceResult> {
  const { session } = entry;
  let lastStep = '';
  const wallTimer = wallClockTimer(session);
  const stopWatch = watchStopFile(session);
  let result: DoTaskResult;
  try {
    // A pinned version that does not exist ends the run here, journaled, before any model call.
    const prompts = await runPrompts(session, core.options);
    const context = buildPhaseContext(session, entry, core.options, prompts, stepLimit, (id) => {
      lastStep = id;
    });
    const outcome = await entry.loop.run(loopContextOf(context));
    result = await finalizeRun(session, entry.loop, { ...outcome, memory: entry.memory });
  } catch (error) {
    if (error instanceof StepPause) return { done: false, step: lastStep };
    const reason = stopReasonOf(session, error);
    result = await finalizeRun(session, entry.loop, {
      reason,
      output: '',
      error: reason === 'error' ? error : undefined,
      ...(isRunStop(error) ? { detail: error.message } : {}),
    });
  } finally {
    clearTimeout(wallTimer);
    stopWatch.close();
  }
  await session.journal.close().catch(() => {});
  await entry.lock.release();
  // Released: a runner hosting many runs keeps nothing of a finished one.
  core.live.delete(session.spec.task_id);
  return { done: true, result };
}

function statusOf(entry: Live | undefined): RunStatus | undefined {
  if (entry === undefined) return undefined;
  const { session } = entry;
  return {
    taskId: session.spec.task_id,
    root: session.paths.root,
    phase: session.state.phase,
    status: session.state.status,
    lastStepId: session.state.last_step_id,
    lastSeq: session.journal.lastSeq,
    stopping: session.stopReason ?? null,
  };
}

// A stop that was asked for is how the run ends, whatever the interrupted work threw on its way out (an approval
// wait or a model call rejects with `aborted` when the stop cuts it short).
function stopReasonOf(session: Session, error: unknown): StopReason {
  if (isRunStop(error)) return error.reason;
  if (session.stopReason) return session.stopReason;
  if (session.signal.aborted && AgencyError.hasCode(error, 'aborted')) return 'cancelled';
  return 'error';
}

function wallClockTimer(session: Session): ReturnType<typeof setTimeout> | undefined {
  const remaining = session.budgets.remaining().wall_clock_ms;
  if (remaining === null) return undefined;
  const timer = setTimeout(() => session.requestStop('budget.wall_clock'), Math.max(0, remaining));
  timer.unref();
  return timer;
}
