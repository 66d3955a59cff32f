import { dirname, relative } from 'node:path';
import { AgencyError } from '../core/errors.ts';
import { createIdGenerator, type IdGenerator } from '../core/ids.ts';
import { defaultRedactor, type Redactor } from '../core/redact.ts';
import type { MemoryManager } from '../memory/memory-manager.ts';
import { createFileBroker } from './approvals/file-broker.ts';
import type { EventFrame } from './contracts/events.ts';
import type { StopReason } from './contracts/state.ts';
import { finalizeRun } from './finalize.ts';
import { removeStaleTempFiles } from './fs/stale-temps.ts';
import { durableFsFor } from './fs/durable-fs.ts';
import { createTaskFiles, type TaskFiles } from './fs/task-files.ts';
import { foldJournal } from './journal-fold.ts';
import { openFileJournal } from './journal/file-journal.ts';
import { readJournal } from './journal/read-journal.ts';
import { checkTaskFolder, ensureProgressDirs, type TaskPaths } from './layout.ts';
import { acquireRunLock, type RunLock } from './lock.ts';
import { type Loop, StepPause } from './loop.ts';
import { gatherPlanActVerify } from './loops/gather-plan-act-verify.ts';
import { planActReflect } from './loops/plan-act-reflect.ts';
import { type DoTaskResult, type ResultView, viewOf } from './result.ts';
import { buildLoopContext, memoryFor } from './run-context.ts';
import { isRunStop } from './run-stop.ts';
import type { RunnerOptions } from './runner-options.ts';
import { createSession, type RunListener, type Session } from './session.ts';
import { specForResume } from './resume-checks.ts';
import { createFileStateStore } from './state-store.ts';
import type { SpecFile } from './contracts/spec.ts';
import { goalFromBrief, type TaskSpec, toSpecFile } from './task-spec.ts';

export type { MemoryContext, RunnerOptions } from './runner-options.ts';
export { DEFAULT_PERSONA } from './run-context.ts';

/** A run that has been started or resumed. */
export type TaskHandle = { readonly taskId: string; readonly root: string; readonly progressDir: string };

/** The outcome of `stepOnce`. */
export type StepOnceResult = { done: false; step: string } | { done: true; result: DoTaskResult };

/** Runs governed tasks. */
export type Runner = {
  /** Starts a task and runs it to the end. */
  doTask(root: string, spec?: TaskSpec, options?: { view?: ResultView; signal?: AbortSignal }): Promise<DoTaskResult>;
  /** Prepares a run: checks the folder, takes the lock, writes `spec.json` and the first state. */
  startTask(root: string, spec?: TaskSpec, options?: { signal?: AbortSignal }): Promise<TaskHandle>;
  /** Runs a started or resumed task to the end. */
  run(handle: TaskHandle, options?: { view?: ResultView }): Promise<DoTaskResult>;
  /** Runs until one more step completes, then pauses (the lock stays held); call again to go on. */
  stepOnce(handle: TaskHandle): Promise<StepOnceResult>;
  /** Asks a run to stop; it ends with `reason` at once if a step is in flight, else at the next boundary. */
  stop(handle: TaskHandle, reason?: StopReason): void;
  /** Reopens a run from its folder alone: spec.json, state.json, the journal and the step checkpoints. */
  resume(root: string, options?: { signal?: AbortSignal }): Promise<TaskHandle>;
  /** Receives every journaled frame of every run of this runner. */
  subscribe(listener: RunListener): () => void;
};

type Live = {
  session: Session;
  lock: RunLock;
  loop: Loop;
  brief: string;
  memory: MemoryManager | undefined;
  finished?: DoTaskResult;
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
    live: new Map<TaskHandle, Live>(),
    loops: new Map<string, Loop>(
      [gatherPlanActVerify, planActReflect(), ...(options.loops ?? [])].map((loop) => [loop.name, loop]),
    ),
  };
  return {
    async doTask(root, spec = {}, { view = 'summary', signal } = {}) {
      const handle = await this.startTask(root, spec, signal ? { signal } : {});
      return this.run(handle, { view });
    },
    startTask: (root, spec = {}, { signal } = {}) => startRun(core, root, spec, signal),
    run: async (handle, { view = 'summary' } = {}) => {
      const outcome = await executeRun(core, handle);
      if (!outcome.done) throw new AgencyError('internal', 'run() paused unexpectedly');
      return viewOf(outcome.result, view);
    },
    stepOnce: (handle) => executeRun(core, handle, 1),
    stop(handle, reason = 'stopped') {
      core.live.get(handle)?.session.requestStop(reason);
    },
    resume: (root, { signal } = {}) => resumeRun(core, root, signal),
    subscribe(listener) {
      core.listeners.add(listener);
      return () => core.listeners.delete(listener);
    },
  };
}

/** What every run of one runner shares. */
type RunnerCore = {
  options: RunnerOptions;
  now: () => number;
  newId: IdGenerator;
  listeners: Set<RunListener>;
  redactor: Redactor;
  live: Map<TaskHandle, Live>;
  loops: Map<string, Loop>;
};

async function startRun(
  core: RunnerCore,
  root: string,
  spec: TaskSpec,
  signal: AbortSignal | undefined,
): Promise<TaskHandle> {
  const paths = await checkTaskFolder(root);
  const files = taskFilesFor(core, paths);
  if (await files.exists(paths.spec)) {
    throw new AgencyError(
      'task_folder_invalid',
      `${paths.spec} exists: this task was already started. Continue it with \`agency resume ${root}\`, or delete progress/ to start over.`,
    );
  }
  await ensureProgressDirs(files, paths);
  const lock = await acquireRunLock(paths.lock, { now: core.now });
  try {
    const brief = await readBrief(files, paths);
    const model = spec.model ?? (typeof core.options.model === 'string' ? core.options.model : undefined);
    const specFile = core.redactor.redact(
      toSpecFile(
        { ...spec, ...(model ? { model } : {}) },
        { taskId: core.newId('task'), goal: goalFromBrief(brief), now: core.now() },
      ),
    );
    await files.write(paths.spec, `${JSON.stringify(specFile, null, 2)}\n`);
    const { handle, entry } = await openRun(core, { paths, files, spec: specFile, frames: [], brief }, signal, lock);
    entry.session.emit(startedEvent(specFile));
    await entry.session.boundary({ phase: 'init', status: 'running' });
    return handle;
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function resumeRun(core: RunnerCore, root: string, signal: AbortSignal | undefined): Promise<TaskHandle> {
  const paths = await checkTaskFolder(root);
  const files = taskFilesFor(core, paths);
  if (!(await files.exists(paths.spec)) && !(await files.exists(paths.events))) {
    throw new AgencyError(
      'task_folder_invalid',
      `${paths.spec} is missing: this task was never started, so there is nothing to resume. Start it with \`agency run ${root}\`.`,
    );
  }
  const lock = await acquireRunLock(paths.lock, { now: core.now });
  try {
    await ensureProgressDirs(files, paths);
    const { frames, torn } = await readJournal(paths.events, { repair: true, fs: files.fs }).catch((error: unknown) => {
      // Killed after writing spec.json and before the journal's first frame: the run has done nothing yet.
      if (AgencyError.hasCode(error, 'path_not_found')) return { frames: [], torn: undefined };
      throw error;
    });
    const resumed = await specForResume(files, paths, foldJournal(frames), (value) => core.redactor.redact(value));
    await createFileStateStore(paths.progress, { fs: files.fs }).read();
    const strays = await removeStaleTempFiles(paths.progress, { skip: [dirname(paths.approvalRequests)] });
    const brief = await readBrief(files, paths);
    const opened = { paths, files, spec: resumed.spec, frames, brief };
    const { handle, entry } = await openRun(core, opened, signal, lock);
    const { session } = entry;
    // Killed between writing spec.json and the first frame: the run starts now.
    if (session.fold.spec === null) session.emit(startedEvent(resumed.spec));
    if (session.fold.finishReason) {
      throw new AgencyError(
        'task_folder_invalid',
        `This run already finished (${session.fold.finishReason}); there is nothing to resume`,
        { details: { finishReason: session.fold.finishReason } },
      );
    }
    session.emit({
      type: 'run.resumed',
      message: `Resumed after seq ${session.fold.lastSeq}${torn ? ` (a torn final line of ${torn.bytes} bytes was repaired)` : ''}`,
      data: {
        from_seq: session.fold.lastSeq,
        ...(torn ? { torn_line: torn.line, torn_bytes: torn.bytes } : {}),
      },
    });
    if (lock.takenOver) session.warn(`Took over a stale run lock left by pid ${lock.takenOver.pid}`);
    if (resumed.restored) session.warn(`${relative(paths.root, paths.spec)} was missing; rewrote it from the journal`);
    if (strays.length > 0) {
      const names = strays.map((file) => relative(paths.root, file)).join(', ');
      session.warn(`Removed ${strays.length} temp file(s) left by interrupted writes: ${names}`);
    }
    await session.boundary({ status: 'running' });
    return handle;
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** What a run is opened from: its folder, its spec and what the journal already holds. */
type RunSource = { paths: TaskPaths; files: TaskFiles; spec: SpecFile; frames: EventFrame[]; brief: string };

async function openRun(
  core: RunnerCore,
  { paths, files, spec, frames, brief }: RunSource,
  signal: AbortSignal | undefined,
  lock: RunLock,
): Promise<{ handle: TaskHandle; entry: Live }> {
  const { options, loops, now, newId, redactor } = core;
  const loop = loops.get(spec.loop);
  if (!loop) {
    throw new AgencyError(
      'invalid_config',
      `The spec names loop "${spec.loop}", which this runner does not have; known: ${[...loops.keys()].join(', ')}`,
    );
  }
  const { fs } = files;
  const journal = await openFileJournal(paths.events, {
    sync: options.journalSync ?? 'group',
    fs,
    now,
    newId,
    redact: (frame) => redactor.redact(frame),
  });
  const broker =
    typeof options.approvals === 'function'
      ? options.approvals(paths.progress)
      : createFileBroker(paths.progress, { mode: options.approvals ?? spec.approvals.mode, now, fs });
  const firstStart = frames.find(
    (frame) => frame.type === 'run.started' || frame.type === 'phase.start' || frame.type === 'run.resumed',
  )?.ts;
  const session = createSession({
    paths,
    files,
    spec,
    journal,
    stateStore: createFileStateStore(paths.progress, { fs }),
    broker,
    fold: foldJournal(frames),
    loop: { name: loop.name, version: loop.version },
    startedAt: firstStart ?? spec.created_at,
    listeners: core.listeners,
    signal: signal ?? new AbortController().signal,
    now,
    newId,
    redact: (value) => redactor.redact(value),
  });
  const handle: TaskHandle = { taskId: spec.task_id, root: paths.root, progressDir: paths.progress };
  const entry: Live = { session, lock, loop, brief, memory: memoryFor(session, options, redactor) };
  core.live.set(handle, entry);
  return { handle, entry };
}

async function executeRun(core: RunnerCore, handle: TaskHandle, stepLimit?: number): Promise<StepOnceResult> {
  const entry = core.live.get(handle);
  if (!entry)
    throw new AgencyError(
      'invalid_argument',
      'This task handle is not open in this runner; call startTask or resume first',
    );
  if (entry.finished) return { done: true, result: entry.finished };
  const { session } = entry;
  let lastStep = '';
  const context = buildLoopContext(session, entry, core.options, stepLimit, (id) => {
    lastStep = id;
  });
  const wallTimer = wallClockTimer(session);
  try {
    const outcome = await entry.loop.run(context);
    entry.finished = await finalizeRun(session, entry.loop, { ...outcome, memory: entry.memory });
  } catch (error) {
    if (error instanceof StepPause) return { done: false, step: lastStep };
    const reason: StopReason = isRunStop(error) ? error.reason : 'error';
    entry.finished = await finalizeRun(session, entry.loop, {
      reason,
      output: '',
      error: isRunStop(error) ? undefined : error,
    });
  } finally {
    clearTimeout(wallTimer);
  }
  await session.journal.close().catch(() => {});
  await entry.lock.release();
  return { done: true, result: entry.finished };
}

function wallClockTimer(session: Session): ReturnType<typeof setTimeout> | undefined {
  const remaining = session.budgets.remaining().wall_clock_ms;
  if (remaining === null) return undefined;
  const timer = setTimeout(() => session.requestStop('budget.wall_clock'), Math.max(0, remaining));
  timer.unref();
  return timer;
}

// One confined, redacting view of the task folder per run; the journal, the state store and the broker share it.
function taskFilesFor(core: RunnerCore, paths: TaskPaths): TaskFiles {
  return createTaskFiles(paths.root, {
    fs: durableFsFor(core.options.durableIo ?? 'inline'),
    redactText: (text) => core.redactor.redactText(text),
  });
}

async function readBrief(files: TaskFiles, paths: TaskPaths): Promise<string> {
  const brief = await files.readText(paths.brief);
  if (brief === undefined) throw new AgencyError('task_folder_invalid', `${paths.brief} is missing`);
  return brief;
}

// The first frame of a run holds its whole spec, so a resumed run can tell whether spec.json was changed since.
function startedEvent(spec: SpecFile) {
  return { type: 'run.started', message: `Run ${spec.task_id} started`, data: { spec } } as const;
}
