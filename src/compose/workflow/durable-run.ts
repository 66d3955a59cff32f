import { mkdir } from 'node:fs/promises';
import type { AgentResult, AgentTask, ExecuteOptions } from '../../agent/types.ts';
import { AgencyError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/messages.ts';
import { defaultRedactor, type Redactor } from '../../core/redact.ts';
import { openFileJournal } from '../../task/journal/file-journal.ts';
import type { Journal, JournalSyncMode } from '../../task/journal/journal.ts';
import type { TornTail } from '../../task/journal/parse-journal.ts';
import { taskPaths } from '../../task/layout.ts';
import { acquireRunLock } from '../../task/lock.ts';
import { journalRecorder } from './journal-recorder.ts';
import { emptyDagState } from './run-dag.ts';
import { type RestoredRun, restoreRun, workflowSpec } from './restore-run.ts';
import type { Workflow, WorkflowExecution } from './workflow.ts';
import { writeWorkflowMarker } from './workflow-marker.ts';

/** Options for {@link runWorkflow} and {@link resumeWorkflow}. */
export type DurableWorkflowOptions = Pick<ExecuteOptions, 'signal' | 'onEvent' | 'runId'> & {
  /** The task root: the run journals to `progress/events.ndjson` under it and holds `progress/.lock`. */
  root: string;
  /** Scrubs secrets from every frame, step outputs included. @default defaultRedactor */
  redactor?: Redactor;
  /** @default 'group' */
  sync?: JournalSyncMode;
};

/**
 * Runs a workflow durably on a task root, journaled like a governed task and marked by `workflow.json` (so
 * `agency serve` lists it): each finished step's output is fsynced before a step that needs it starts, so after a
 * crash `resumeWorkflow` continues at the last finished step.
 * @throws AgencyError `task_locked` when another run holds the root, `task_folder_invalid` when the root already
 * has a run (resume it instead), `journal_not_durable` when the journal cannot be written.
 */
export async function runWorkflow(
  workflow: Workflow,
  task: AgentTask,
  options: DurableWorkflowOptions,
): Promise<AgentResult> {
  return runOnJournal(workflow, options, async (journal, events) => {
    const { frames } = await journal.read();
    if (frames.length > 0) {
      throw new AgencyError(
        'task_folder_invalid',
        `${events} already holds a run; continue it with resumeWorkflow, or start a new run in an empty task root`,
      );
    }
    const spec = workflowSpec(workflow, task.input);
    journal.append({ type: 'run.started', message: `Workflow ${workflow.name} started`, data: { spec } });
    await journal.flush();
    const [started] = (await journal.read()).frames;
    await writeWorkflowMarker(options.root, spec, started?.ts ?? new Date().toISOString());
    return { task, execution: { state: emptyDagState(), recorder: recorderFor(journal, options) } };
  });
}

/**
 * Continues a workflow run from its journal, after a crash, a cancellation, a failed step (tried again) or a
 * suspension. Finished steps are not run again; a step that was in flight when the run stopped runs again from its
 * start (steps run at least once). `input` is the answer for the step that suspended the run, journaled before the
 * step sees it.
 * @throws AgencyError `task_folder_invalid` when there is no run, it already completed, or it is another workflow's;
 * `journal_corrupt` naming the line of a malformed or edited frame; `invalid_argument` for an `input` when no step
 * is waiting for one.
 */
export async function resumeWorkflow(
  workflow: Workflow,
  options: DurableWorkflowOptions & { input?: JsonValue },
): Promise<AgentResult> {
  return runOnJournal(workflow, options, async (journal, events) => {
    const { frames, torn } = await journal.read();
    if (frames.length === 0) {
      throw new AgencyError('task_folder_invalid', `${events} holds no run to resume; start one with runWorkflow`);
    }
    const restored = restoreRun(workflow, frames, events);
    if (restored.fold.finishReason === 'completed') {
      throw new AgencyError(
        'task_folder_invalid',
        `${events}: this run already completed; start a new run to do it again`,
      );
    }
    const { input } = options;
    if (input !== undefined) {
      if (!restored.waiting) {
        throw new AgencyError(
          'invalid_argument',
          `${events}: no step of this run is waiting for input; resume it without one`,
        );
      }
      restored.state.answers.set(restored.waiting.step, input);
    }
    journal.append(resumedFrame(restored, torn, input));
    await journal.flush();
    const warnings = torn ? [`${events}: a torn last line of ${torn.bytes} bytes was cut off`] : [];
    const state = restored.state;
    return { task: { input: restored.input }, execution: { state, recorder: recorderFor(journal, options), warnings } };
  });
}

type Prepared = { task: AgentTask; execution: Omit<WorkflowExecution, 'resume'> };

// Holds the lock and the journal for the whole run; a suspended run's handle resumes through resumeWorkflow later.
async function runOnJournal(
  workflow: Workflow,
  options: DurableWorkflowOptions,
  prepare: (journal: Journal, events: string) => Promise<Prepared>,
): Promise<AgentResult> {
  const paths = taskPaths(options.root);
  await mkdir(paths.progress, { recursive: true });
  const lock = await acquireRunLock(paths.lock);
  const redactor = options.redactor ?? defaultRedactor;
  let journal: Journal | undefined;
  const release = async () => {
    await journal?.close().catch(() => undefined);
    await lock.release();
  };
  let prepared: Prepared;
  try {
    journal = await openFileJournal(paths.events, {
      redact: (frame) => redactor.redact(frame),
      sync: options.sync ?? 'group',
    });
    prepared = await prepare(journal, paths.events);
  } catch (error) {
    await release();
    throw error;
  }
  const { signal, onEvent, runId } = options;
  const resume = (data: JsonValue | undefined, next: ExecuteOptions | undefined) =>
    resumeWorkflow(workflow, { ...options, ...next, ...(data === undefined ? {} : { input: data }) });
  const executeOptions = {
    ...(signal ? { signal } : {}),
    ...(onEvent ? { onEvent } : {}),
    ...(runId ? { runId } : {}),
  };
  return workflow.run(prepared.task, executeOptions, { ...prepared.execution, resume }).finally(release);
}

function recorderFor(journal: Journal, options: DurableWorkflowOptions) {
  return journalRecorder(journal, options.redactor ?? defaultRedactor);
}

function resumedFrame(restored: RestoredRun, torn: TornTail | undefined, input: JsonValue | undefined) {
  const { fold, waiting } = restored;
  return {
    type: 'run.resumed',
    message:
      `Resumed after seq ${fold.lastSeq}${fold.finishReason ? ` (it had stopped: ${fold.finishReason})` : ''}` +
      `${input !== undefined && waiting ? ` with input for step ${waiting.step}` : ''}` +
      `${torn ? ` (a torn final line of ${torn.bytes} bytes was repaired)` : ''}`,
    data: {
      from_seq: fold.lastSeq,
      ...(fold.finishReason ? { after: fold.finishReason } : {}),
      ...(torn ? { torn_line: torn.line, torn_bytes: torn.bytes } : {}),
      ...(input !== undefined && waiting ? { step: waiting.step, input } : {}),
    },
  } as const;
}
