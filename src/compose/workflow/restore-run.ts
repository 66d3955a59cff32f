import { canonicalDigest } from '../../core/canonical-json.ts';
import { AgencyError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/messages.ts';
import type { EventFrame } from '../../task/contracts/events.ts';
import { foldJournal, type JournalFold } from '../../task/journal-fold.ts';
import { journalCorrupt } from '../../task/journal/parse-journal.ts';
import { WORKFLOW_PHASE } from './journal-recorder.ts';
import { type DagState, emptyDagState } from './run-dag.ts';
import type { Workflow } from './workflow.ts';

/** The spec a workflow run journals in `run.started`. */
export type WorkflowSpec = { kind: 'workflow'; workflow: string; steps: string[]; input: string };

/** What a workflow's journal says about its run: its input, finished steps, and the step waiting for input. */
export type RestoredRun = {
  input: string;
  state: DagState;
  fold: JournalFold;
  /** The step that suspended the run, when the run's last end was a suspension. */
  waiting?: { step: string; payload: JsonValue };
};

/** The `run.started` spec of a workflow run. */
export function workflowSpec(workflow: Workflow, input: string): WorkflowSpec {
  return { kind: 'workflow', workflow: workflow.name, steps: workflow.steps.map((step) => step.id), input };
}

/**
 * Rebuilds a workflow run from its journal: the fold gives the spec and how the run last ended; each step's
 * `phase.finish` gives its output, checked against its digest; each `run.resumed` with an `input` gives the answer
 * for the step that waited for it.
 * @throws AgencyError `task_folder_invalid` when the journal is another workflow's (or of a changed definition);
 * `journal_corrupt` naming the line when a step's frame names an unknown step or its output was edited.
 */
export function restoreRun(workflow: Workflow, frames: readonly EventFrame[], file: string): RestoredRun {
  const fold = foldJournal(frames);
  const spec = checkSpec(workflow, fold.spec, file);
  const state = emptyDagState();
  const known = new Set(spec.steps);
  let waiting: RestoredRun['waiting'];
  frames.forEach((frame, index) => {
    const data = frame.data ?? {};
    if (frame.type === 'phase.finish' && data.phase === WORKFLOW_PHASE) {
      restoreStep(state, known, frame, data, (problem) => journalCorrupt(file, index + 1, problem));
    } else if (frame.type === 'run.resumed' && typeof data.step === 'string' && 'input' in data) {
      state.answers.set(data.step, data.input as JsonValue);
    } else if (frame.type === 'finish') {
      const suspended = data.suspended as { step?: unknown; payload?: unknown } | undefined;
      waiting =
        typeof suspended?.step === 'string' && known.has(suspended.step)
          ? { step: suspended.step, payload: (suspended.payload ?? null) as JsonValue }
          : undefined;
    }
  });
  for (const step of Object.keys(state.outputs)) state.answers.delete(step);
  return { input: spec.input, state, fold, ...(waiting && fold.finishReason !== null ? { waiting } : {}) };
}

function restoreStep(
  state: DagState,
  known: Set<string>,
  frame: EventFrame,
  data: Record<string, unknown>,
  corrupt: (problem: string) => AgencyError,
): void {
  const step = frame.step ?? '';
  if (!known.has(step)) throw corrupt(`a finished step "${step}" that the workflow does not have`);
  if (data.status !== 'done' && data.status !== 'skipped') {
    throw corrupt(`step "${step}" has status ${JSON.stringify(data.status)}, not "done" or "skipped"`);
  }
  if (!('output' in data) || typeof data.output_digest !== 'string') {
    throw corrupt(`step "${step}" has no "output" or "output_digest"`);
  }
  if (canonicalDigest(data.output) !== data.output_digest) {
    throw corrupt(`the output of step "${step}" does not match its output_digest: it was changed after it was written`);
  }
  state.outputs[step] = data.output as JsonValue;
  if (data.status === 'skipped') state.skipped.add(step);
}

function checkSpec(workflow: Workflow, spec: unknown, file: string): WorkflowSpec {
  const value = spec as Partial<WorkflowSpec> | null;
  if (value?.kind !== 'workflow' || typeof value.input !== 'string' || !Array.isArray(value.steps)) {
    throw new AgencyError(
      'task_folder_invalid',
      `${file}: this journal is not a workflow run's (its run.started frame has no workflow spec); ` +
        'resume a governed task with `agency resume`',
    );
  }
  const expected = workflow.steps.map((step) => step.id);
  const same = value.steps.length === expected.length && expected.every((id) => value.steps?.includes(id));
  if (value.workflow !== workflow.name || !same) {
    throw new AgencyError(
      'task_folder_invalid',
      `${file}: this run was started by workflow "${String(value.workflow)}" with steps ` +
        `[${value.steps.join(', ')}]; workflow "${workflow.name}" has [${expected.join(', ')}]. ` +
        'Resume it with the definition it started with, or start a new run in another task root',
    );
  }
  return value as WorkflowSpec;
}
