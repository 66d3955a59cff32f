import { AgencyError } from '../core/errors.ts';
import { checkChainPriced } from '../model/chain-prices.ts';
import type { IdGenerator } from '../core/ids.ts';
import type { Redactor } from '../core/redact.ts';
import type { MemoryManager } from '../memory/memory-manager.ts';
import { createFileBroker } from './approvals/file-broker.ts';
import type { EventFrame } from './contracts/events.ts';
import type { SpecFile } from './contracts/spec.ts';
import { durableFsFor } from './fs/durable-fs.ts';
import { createTaskFiles, type TaskFiles } from './fs/task-files.ts';
import { foldJournal } from './journal-fold.ts';
import { openFileJournal } from './journal/file-journal.ts';
import { checkTaskFolder, ensureProgressDirs, type TaskPaths } from './layout.ts';
import { acquireRunLock, type RunLock } from './lock.ts';
import type { Loop } from './loop.ts';
import { memoryFor } from './run-context.ts';
import type { RunnerOptions } from './runner-options.ts';
import { createSession, type RunListener, type Session } from './session.ts';
import { createFileStateStore } from './state-store.ts';
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

/** Starts a run: checks the folder, takes the lock, writes `spec.json` and journals `run.started`. */
export async function startRun(
  core: RunnerCore,
  root: string,
  spec: TaskSpec,
  signal: AbortSignal | undefined,
): Promise<TaskHandle> {
  const paths = await checkTaskFolder(root);
  checkBudgetPriced(core.options, spec.model, spec.budgets?.maxCostUsd);
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
    for (const warning of core.options.warnings ?? []) entry.session.warn(warning);
    await entry.session.boundary({ phase: 'init', status: 'running' });
    return handle;
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** What a run is opened from: its folder, its spec and what the journal already holds. */
type RunSource = { paths: TaskPaths; files: TaskFiles; spec: SpecFile; frames: EventFrame[]; brief: string };

/** Opens the journal, the broker and the session of a run, and registers it as live. */
export async function openRun(
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
  if (core.live.has(handle.taskId)) {
    throw new AgencyError('task_locked', `Run ${handle.taskId} is already open in this runner`);
  }
  core.live.set(handle.taskId, entry);
  return { handle, entry };
}

// One confined, redacting view of the task folder per run; the journal, the state store and the broker share it.
export function taskFilesFor(core: RunnerCore, paths: TaskPaths): TaskFiles {
  return createTaskFiles(paths.root, {
    fs: durableFsFor(core.options.durableIo ?? 'inline'),
    redactText: (text) => core.redactor.redactText(text),
  });
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
  checkChainPriced({ model, maxCostUsd, ...(options.catalog ? { catalog: options.catalog } : {}) });
}
