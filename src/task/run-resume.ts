import { dirname, relative } from 'node:path';
import { AgencyError, errorMessage } from '../core/errors.ts';
import type { SpecFile } from './contracts/spec.ts';
import { FINAL_STOP_REASONS } from './contracts/state.ts';
import type { TaskFiles } from './fs/task-files.ts';
import { removeStaleTempFiles } from './fs/stale-temps.ts';
import { foldJournal, type JournalFold } from './journal-fold.ts';
import type { Journal } from './journal/journal.ts';
import type { TornTail } from './journal/parse-journal.ts';
import { checkTaskFolder, ensureProgressDirs, type TaskPaths, taskPaths } from './layout.ts';
import { acquireRunLock } from './lock.ts';
import { specForResume } from './resume-checks.ts';
import { restoreDerivedFiles } from './derived-files.ts';
import {
  checkBudgetPriced,
  openJournal,
  openRun,
  readBrief,
  type RunnerCore,
  specText,
  startedEvent,
  stateStoreFor,
  type TaskHandle,
  taskFilesFor,
} from './run-core.ts';
import type { Session } from './session.ts';
import type { StateStore } from './state-store.ts';
import { BUDGET_FIELDS, type Budgets, toBudgetLimits } from './task-spec.ts';

/** Options for `runner.resume`. */
export type ResumeOptions = {
  signal?: AbortSignal;
  /**
   * New budgets for the rest of the run, e.g. more steps after a `budget.iterations` stop. Each one given replaces the
   * spec's; the change is journaled as `budget.changed` with `by` and the time, and `spec.json` is rewritten.
   */
  budgets?: Budgets;
  /** Who changed the budgets, for the journal. @default 'runner' */
  by?: string;
};

/**
 * Reopens a run from its folder. The journal is the source of truth: a run that was not finished on purpose (see
 * `FINAL_STOP_REASONS`) continues from its last step boundary, whether it was killed, stopped, cancelled, out of
 * budget, left with an expired approval, or ended by an error (the failed step is tried again). A `STOP` file left
 * from the stop is removed; a `state.json` that cannot be read or is behind the journal is rebuilt from the journal's
 * fold; and the files derived from the journal (plans, step outputs, approval requests, reports, notes) are rebuilt
 * where they are missing, torn or disagree with it, each with a `warning`.
 */
export async function resumeRun(core: RunnerCore, root: string, options: ResumeOptions = {}): Promise<TaskHandle> {
  const paths = await checkTaskFolder(root);
  const files = taskFilesFor(core, paths);
  const fileJournal = core.options.journal === undefined;
  if (fileJournal && !(await files.exists(paths.spec)) && !(await files.exists(paths.events))) throw neverStarted(root);
  const lock = await acquireRunLock(paths.lock, { now: core.now });
  let journal: Journal | undefined;
  try {
    // First, with the lock held: a run killed while writing a file leaves its temp file behind, even a run killed
    // after its finish was durable, which the resume then refuses.
    const strays = await removeStaleTempFiles(paths.progress, { skip: [dirname(paths.approvalRequests)] });
    await ensureProgressDirs(files, paths);
    journal = await openJournal(core, paths, files);
    const { frames, torn } = await journal.read();
    if (frames.length === 0 && !(await files.exists(paths.spec))) throw neverStarted(root);
    const fold = foldJournal(frames);
    refuseIfFinal(fold);
    const resumed = await specForResume(files, paths, fold, (value) => core.redactor.redact(value));
    const spec = withBudgets(resumed.spec, options.budgets);
    checkBudgetPriced(core.options, spec.model, spec.budgets.max_cost_usd);
    const state = await checkState(stateStoreFor(core, paths, files), fold);
    const stopFile = await removeStopFile(files, paths);
    const brief = await readBrief(files, paths);
    const { handle, entry } = openRun(core, { paths, files, spec, journal, frames, brief }, options.signal, lock);
    const { session } = entry;
    // Killed between writing spec.json and the first frame: the run starts now.
    if (session.fold.spec === null) session.emit(startedEvent(resumed.spec));
    session.emit(resumedEvent(fold, torn, stopFile, state.behind));
    if (spec !== resumed.spec) {
      // The journal says so first: a spec.json ahead of the journal would be refused by the next resume.
      journalBudgetChange(session, resumed.spec, spec, options.by ?? 'runner');
      await session.journal.flush();
      await files.write(paths.spec, specText(spec));
    }
    for (const warning of core.options.warnings ?? []) session.warn(warning);
    if (lock.takenOver) session.warn(`Took over a stale run lock left by pid ${lock.takenOver.pid}`);
    const shown = (file: string) => relative(paths.root, file);
    if (resumed.restored) session.warn(`${shown(paths.spec)} ${resumed.restored}; rewrote it from the journal`);
    if (state.problem) session.warn(`${shown(paths.state)} ${state.problem}; rebuilt it from the journal`);
    if (strays.length > 0) {
      const names = strays.map(shown).join(', ');
      session.warn(`Removed ${strays.length} temp file(s) left by interrupted writes: ${names}`);
    }
    for (const warning of await restoreDerivedFiles(files, paths, frames)) session.warn(warning);
    await session.boundary({ status: 'running' });
    return handle;
  } catch (error) {
    await journal?.close().catch(() => undefined);
    await lock.release();
    throw error;
  }
}

function neverStarted(root: string): AgencyError {
  return new AgencyError(
    'task_folder_invalid',
    `${taskPaths(root).spec} is missing: this task was never started, so there is nothing to resume. Start it with \`agency run ${root}\`.`,
  );
}

function resumedEvent(fold: JournalFold, torn: TornTail | undefined, stopFile: boolean, stateBehind?: number) {
  return {
    type: 'run.resumed',
    message: `Resumed after seq ${fold.lastSeq}${fold.finishReason ? ` (it had stopped: ${fold.finishReason})` : ''}${torn ? ` (a torn final line of ${torn.bytes} bytes was repaired)` : ''}`,
    data: {
      from_seq: fold.lastSeq,
      ...(fold.finishReason ? { after: fold.finishReason } : {}),
      ...(torn ? { torn_line: torn.line, torn_bytes: torn.bytes } : {}),
      ...(stopFile ? { stop_file_removed: true } : {}),
      state_last_seq: stateBehind,
    },
  } as const;
}

function refuseIfFinal(fold: JournalFold): void {
  const reason = fold.finishReason;
  if (reason === null || !FINAL_STOP_REASONS.includes(reason)) return;
  const next =
    reason === 'approval.denied'
      ? 'The plan was denied: start a new run for a new plan.'
      : 'Start a new run to do it again.';
  throw new AgencyError(
    'task_folder_invalid',
    `This run already finished (${reason}); there is nothing to resume. ${next}`,
    {
      details: { finishReason: reason },
    },
  );
}

// The state is a checkpoint of the journal, rebuilt from its fold at the first boundary. One behind the journal is
// what a crash or a power loss leaves (the run.resumed frame notes it); one ahead of it means the journal lost frames
// it had acknowledged, which is worth a warning.
async function checkState(store: StateStore, fold: JournalFold): Promise<{ problem?: string; behind?: number }> {
  let state;
  try {
    state = await store.read();
  } catch (error) {
    return { problem: `could not be read (${errorMessage(error)})` };
  }
  if (state === undefined || state.last_seq === fold.lastSeq) return {};
  if (state.last_seq < fold.lastSeq) return { behind: state.last_seq };
  return { problem: `says seq ${state.last_seq} was durable, but the journal ends at seq ${fold.lastSeq}` };
}

// Resuming is the request to go on, so the STOP that ended the run goes.
async function removeStopFile(files: TaskFiles, paths: TaskPaths): Promise<boolean> {
  if (!(await files.exists(paths.stop))) return false;
  await files.remove(paths.stop);
  return true;
}

// Only the budgets the caller gave, and only those that change a limit: a resume with none, or with the same
// values, changes nothing and journals nothing.
function withBudgets(spec: SpecFile, budgets: Budgets | undefined): SpecFile {
  if (budgets === undefined) return spec;
  const limits = toBudgetLimits(budgets);
  const given = Object.fromEntries(
    (Object.keys(BUDGET_FIELDS) as Array<keyof Budgets>)
      .filter((key) => budgets[key] !== undefined)
      .map((key) => [BUDGET_FIELDS[key], limits[BUDGET_FIELDS[key]]] as const)
      .filter(([field, value]) => value !== spec.budgets[field]),
  ) as Partial<SpecFile['budgets']>;
  if (Object.keys(given).length === 0) return spec;
  return { ...spec, budgets: { ...spec.budgets, ...given } };
}

function journalBudgetChange(session: Session, before: SpecFile, after: SpecFile, by: string): void {
  const changed = Object.keys(after.budgets).filter(
    (key) => after.budgets[key as keyof SpecFile['budgets']] !== before.budgets[key as keyof SpecFile['budgets']],
  );
  session.emit({
    type: 'budget.changed',
    message: `Budgets changed by ${by}: ${changed.map((key) => `${key} ${String(before.budgets[key as keyof SpecFile['budgets']])} → ${String(after.budgets[key as keyof SpecFile['budgets']])}`).join(', ')}`,
    data: { by, at: new Date(session.now()).toISOString(), previous: before.budgets, limits: after.budgets },
  });
}
