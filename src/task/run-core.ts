import { AgencyError } from '../core/errors.ts';
import { checkChainPriced } from '../model/chain-prices.ts';
import { type IdGenerator, isId } from '../core/ids.ts';
import type { Redactor } from '../core/redact.ts';
import type { MemoryManager } from '../memory/memory-manager.ts';
import { createFileBroker } from './approvals/file-broker.ts';
import type { EventFrame } from './contracts/events.ts';
import type { SpecFile } from './contracts/spec.ts';
import { createTaskFiles, type TaskFiles } from './fs/task-files.ts';
import { foldJournal } from './journal-fold.ts';
import { openFileJournal } from './journal/file-journal.ts';
import type { Journal } from './journal/journal.ts';
import { checkTaskFolder, ensureProgressDirs, type TaskPaths } from './layout.ts';
import { acquireRunLock, type RunLock } from './lock.ts';
import type { Loop } from './loop.ts';
import { memoryFor } from './run-context.ts';
import type { RunnerOptions } from './runner-options.ts';
import { createSession, type RunListener, type Session } from './session.ts';
import { createFileStateStore, type StateStore } from './state-store.ts';
import { createToolWrites } from './tool-writes.ts';
import { goalFromBrief, type TaskSpec, toSpecFile } from './task-spec.ts';

/** A run that has been started or resumed. Only `taskId` identifies it: any object with the same id will do. */
export type TaskHandle = { readonly taskId: string; readonly root: string; readonly progressDir: string };

/** A run, named by its task id or by any object that carries it (a handle, or a fresh object from an HTTP body). */
export type TaskRef = string | { readonly taskId: string };

/** The task id a {@link TaskRef} names. */
export function taskIdOf(task: TaskRef): string {
  return typeof task === 'string' ? task : task.taskId;
}

/** A run open in a runner. */
export type Live = {
  session: Session;
  lock: RunLock;
  loop: Loop;
  brief: string;
  memory: MemoryManager | undefined;
};

/** What every run of one runner shares. */
export type RunnerCore = {
  options: RunnerOptions;
  now: () => number;
  newId: IdGenerator;
  listeners: Set<RunListener>;
  redactor: Redactor;
  /** Open runs by task id; a run leaves this map when it finishes. */
  live: Map<string, Live>;
  loops: Map<string, Loop>;
};

/**
 * Starts a run: checks the folder, takes the lock, opens the journal (which must be empty), writes `spec.json` and
 * journals `run.started`, which holds the spec; the first boundary makes it durable.
 */
export async function startRun(
  core: RunnerCore,
  root: string,
  spec: TaskSpec,
  signal: AbortSignal | undefined,
  taskId?: string,
): Promise<TaskHandle> {
  if (taskId !== undefined && !isId(taskId, 'task'))
    throw new AgencyError('invalid_argument', `taskId ${JSON.stringify(taskId)} must be a task id (task_ and a ULID)`);
  const paths = await checkTaskFolder(root);
  checkBudgetPriced(core.options, spec.model, spec.budgets?.maxCostUsd);
  const files = taskFilesFor(core, paths);
  if (await files.exists(paths.spec)) throw alreadyStarted(paths, root);
  await ensureProgressDirs(files, paths);
  const lock = await acquireRunLock(paths.lock, { now: core.now });
  let journal: Journal | undefined;
  try {
    const brief = await readBrief(files, paths);
    journal = await openJournal(core, paths, files);
    // spec.json may have been lost in a power loss after the run started: the journal says so.
    if (journal.lastSeq > 0) throw alreadyStarted(paths, root);
    const model = spec.model ?? (typeof core.options.model === 'string' ? core.options.model : undefined);
    const specFile = core.redactor.redact(
      toSpecFile(
        { ...spec, ...(model ? { model } : {}) },
        { taskId: taskId ?? core.newId('task'), goal: goalFromBrief(brief), now: core.now() },
      ),
    );
    await files.write(paths.spec, specText(specFile));
    const source = { paths, files, spec: specFile, journal, frames: [], brief };
    const { handle, entry } = openRun(core, source, signal, lock);
    entry.session.emit(startedEvent(specFile));
    for (const warning of core.options.warnings ?? []) entry.session.warn(warning);
    await entry.session.boundary({ phase: 'init', status: 'running' });
    return handle;
  } catch (error) {
    await journal?.close().catch(() => undefined);
    await lock.release();
    throw error;
  }
}

/** What a run is opened from: its folder, its spec, its journal and the frames it already holds. */
export type RunSource = {
  paths: TaskPaths;
  files: TaskFiles;
  spec: SpecFile;
  journal: Journal;
  frames: EventFrame[];
  brief: string;
};

/** Opens the broker and the session of a run over its journal, and registers it as live. */
export function openRun(
  core: RunnerCore,
  { paths, files, spec, journal, frames, brief }: RunSource,
  signal: AbortSignal | undefined,
  lock: RunLock,
): { handle: TaskHandle; entry: Live } {
  const { options, loops, now, newId, redactor } = core;
  const loop = loops.get(spec.loop);
  if (!loop) {
    throw new AgencyError(
      'invalid_config',
      `The spec names loop "${spec.loop}", which this runner does not have; known: ${[...loops.keys()].join(', ')}`,
    );
  }
  const { fs } = files;
  const broker =
    typeof options.approvals === 'function'
      ? options.approvals(paths.progress)
      : createFileBroker(paths.progress, { mode: options.approvals ?? spec.approvals.mode, now, fs });
  const firstStart = frames.find(
    (frame) => frame.type === 'run.started' || frame.type === 'phase.start' || frame.type === 'run.resumed',
  )?.ts;
  // A walk too large to finish is said in the journal, once.
  const toolWrites = createToolWrites(fs, paths, { onWarning: (message) => session.warn(message) });
  const session = createSession({
    paths,
    files,
    spec,
    journal,
    stateStore: stateStoreFor(core, paths, files),
    broker,
    toolWrites,
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
  if (core.live.has(handle.taskId)) {
    throw new AgencyError('task_locked', `Run ${handle.taskId} is already open in this runner`);
  }
  core.live.set(handle.taskId, entry);
  return { handle, entry };
}

/** Opens a run's journal: the runner's `journal` option, or the file journal at `progress/events.ndjson`. */
export async function openJournal(core: RunnerCore, paths: TaskPaths, files: TaskFiles): Promise<Journal> {
  const frames = { now: core.now, newId: core.newId, redact: (frame: EventFrame) => core.redactor.redact(frame) };
  if (core.options.journal) return core.options.journal(paths, frames);
  return openFileJournal(paths.events, { ...frames, sync: core.options.journalSync ?? 'group', fs: files.fs });
}

/** Where a run keeps its state: the runner's `stateStore` option, or `progress/state.json`. */
export function stateStoreFor(core: RunnerCore, paths: TaskPaths, files: TaskFiles): StateStore {
  return core.options.stateStore?.(paths) ?? createFileStateStore(paths.progress, { fs: files.fs });
}

// One confined, redacting view of the task folder per run; the journal, the state store and the broker share it.
export function taskFilesFor(core: RunnerCore, paths: TaskPaths): TaskFiles {
  const { fs } = core.options.deps ?? {};
  return createTaskFiles(paths.root, { fs, redactText: (text) => core.redactor.redactText(text) });
}

/** The text of `spec.json`. */
export function specText(spec: SpecFile): string {
  return `${JSON.stringify(spec, null, 2)}\n`;
}

function alreadyStarted(paths: TaskPaths, root: string): AgencyError {
  return new AgencyError(
    'task_folder_invalid',
    `${paths.spec} exists: this task was already started. Continue it with \`agency resume ${root}\`, or delete progress/ to start over.`,
  );
}

/** The task's brief, read without following a link. */
export async function readBrief(files: TaskFiles, paths: TaskPaths): Promise<string> {
  const brief = await files.readText(paths.brief);
  if (brief === undefined) throw new AgencyError('task_folder_invalid', `${paths.brief} is missing`);
  return brief;
}

// The first frame of a run holds its whole spec, so a resumed run can tell whether spec.json was changed since.
export function startedEvent(spec: SpecFile) {
  return { type: 'run.started', message: `Run ${spec.task_id} started`, data: { spec } } as const;
}

/** A cost budget holds only if every model that may run has a price: refuses before the run does anything. */
export function checkBudgetPriced(
  options: RunnerOptions,
  specModel: string | null | undefined,
  maxCostUsd?: number | null,
): void {
  const model = options.model ?? specModel;
  if (model === undefined || model === null) return;
  checkChainPriced({ model, maxCostUsd, catalog: options.catalog });
}
