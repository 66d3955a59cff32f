import { dirname, relative } from 'node:path';
import { AgencyError, errorMessage } from '../core/errors.ts';
import type { SpecFile } from './contracts/spec.ts';
import { FINAL_STOP_REASONS } from './contracts/state.ts';
import type { TaskFiles } from './fs/task-files.ts';
import { removeStaleTempFiles } from './fs/stale-temps.ts';
import { foldJournal, type JournalFold } from './journal-fold.ts';
import { readJournal } from './journal/read-journal.ts';
import { checkTaskFolder, ensureProgressDirs, type TaskPaths } from './layout.ts';
import { acquireRunLock } from './lock.ts';
import { specForResume } from './resume-checks.ts';
import {
  checkBudgetPriced,
  openRun,
  readBrief,
  type RunnerCore,
  startedEvent,
  type TaskHandle,
  taskFilesFor,
} from './run-core.ts';
import type { Session } from './session.ts';
import { createFileStateStore } from './state-store.ts';
import { type Budgets, toBudgetLimits } from './task-spec.ts';

/** Options for `runner.resume`. */
export type ResumeOptions = {
  signal?: AbortSignal;
  /**
   * New budgets for the rest of the run, e.g. more steps after a `budget.steps` stop. Each one given replaces the
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
 * from the stop is removed, and an unreadable `state.json` is rebuilt from the journal.
 */
export async function resumeRun(core: RunnerCore, root: string, options: ResumeOptions = {}): Promise<TaskHandle> {
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
    const fold = foldJournal(frames);
    refuseIfFinal(fold);
    const resumed = await specForResume(files, paths, fold, (value) => core.redactor.redact(value));
    const spec = withBudgets(resumed.spec, options.budgets);
    checkBudgetPriced(core.options, spec.model, spec.budgets.max_cost_usd);
    const stateProblem = await readableState(files, paths);
    const stopFile = await removeStopFile(files, paths);
    const strays = await removeStaleTempFiles(paths.progress, { skip: [dirname(paths.approvalRequests)] });
    const brief = await readBrief(files, paths);
    const { handle, entry } = await openRun(core, { paths, files, spec, frames, brief }, options.signal, lock);
    const { session } = entry;
    // Killed between writing spec.json and the first frame: the run starts now.
    if (session.fold.spec === null) session.emit(startedEvent(resumed.spec));
    session.emit({
      type: 'run.resumed',
      message: `Resumed after seq ${fold.lastSeq}${fold.finishReason ? ` (it had stopped: ${fold.finishReason})` : ''}${torn ? ` (a torn final line of ${torn.bytes} bytes was repaired)` : ''}`,
      data: {
        from_seq: fold.lastSeq,
        ...(fold.finishReason ? { after: fold.finishReason } : {}),
        ...(torn ? { torn_line: torn.line, torn_bytes: torn.bytes } : {}),
        ...(stopFile ? { stop_file_removed: true } : {}),
      },
    });
    if (spec !== resumed.spec) {
      // The journal says so first: a spec.json ahead of the journal would be refused by the next resume.
      journalBudgetChange(session, resumed.spec, spec, options.by ?? 'runner');
      await session.journal.flush();
      await files.write(paths.spec, `${JSON.stringify(spec, null, 2)}\n`);
    }
    for (const warning of core.options.warnings ?? []) session.warn(warning);
    if (lock.takenOver) session.warn(`Took over a stale run lock left by pid ${lock.takenOver.pid}`);
    if (resumed.restored) session.warn(`${relative(paths.root, paths.spec)} was missing; rewrote it from the journal`);
    if (stateProblem) session.warn(`${relative(paths.root, paths.state)} ${stateProblem}; rebuilt it from the journal`);
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

// The state is a checkpoint of the journal: one that cannot be read is rebuilt at the first boundary.
async function readableState(files: TaskFiles, paths: TaskPaths): Promise<string | undefined> {
  try {
    await createFileStateStore(paths.progress, { fs: files.fs }).read();
    return undefined;
  } catch (error) {
    return `could not be read (${errorMessage(error)})`;
  }
}

// Resuming is the request to go on, so the STOP that ended the run goes.
async function removeStopFile(files: TaskFiles, paths: TaskPaths): Promise<boolean> {
  if (!(await files.exists(paths.stop))) return false;
  await files.remove(paths.stop);
  return true;
}

function withBudgets(spec: SpecFile, budgets: Budgets | undefined): SpecFile {
  if (budgets === undefined) return spec;
  const given = Object.fromEntries(
    Object.entries(toBudgetLimits(budgets)).filter(([, value]) => value !== null),
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
