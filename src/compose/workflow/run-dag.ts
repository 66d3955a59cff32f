import type { Suspended } from '../../agent/suspend.ts';
import type { CallRecord } from '../../agent/types.ts';
import { errorMessage } from '../../core/errors.ts';
import type { ErrorCode } from '../../core/error-codes.ts';
import type { JsonValue } from '../../core/messages.ts';
import { addUsage, emptyUsage, type Usage } from '../../core/usage.ts';
import { runStep, type StepOutcome, type StepRun } from './run-step.ts';
import { type StepContext, stepKind, type WorkflowStep } from './types.ts';

/** What a workflow run knows: finished steps, answers waiting for suspended steps, and in-process handles. */
export type DagState = {
  /** Every finished step's output (`null` when skipped). */
  outputs: Record<string, JsonValue>;
  skipped: Set<string>;
  /** The person's answer for a step that suspended the run, passed to it as `resumeData`. */
  answers: Map<string, JsonValue>;
  /** The suspended runs of agent steps, kept in this process. */
  handles: Map<string, Suspended>;
};

/** What a run of the DAG needs. */
export type DagRun = Pick<StepRun, 'workflow' | 'input' | 'recorder' | 'emit' | 'now' | 'random' | 'sleep'> & {
  steps: readonly WorkflowStep[];
  concurrency: number;
  signal: AbortSignal | undefined;
};

/** How a run of the DAG ended, with what it did. */
export type DagOutcome = {
  end:
    | { reason: 'completed' }
    | { reason: 'suspended'; step: string; payload: JsonValue }
    | { reason: 'error'; step?: string; error: { code: ErrorCode; message: string } }
    | { reason: 'cancelled' };
  calls: CallRecord[];
  usage: Usage;
  attempts: number;
};

/**
 * Runs the steps that are not finished yet: every step whose dependencies are finished starts, up to `concurrency`
 * at a time. A step whose `when` is false, or that needs a skipped step, is skipped. A failed step stops the run
 * (steps in flight are cancelled); a suspended step blocks only the steps that need it, and the run suspends once
 * nothing else can run.
 */
export async function runDag(run: DagRun, state: DagState): Promise<DagOutcome> {
  const inner = new AbortController();
  const cancel = () => inner.abort(run.signal?.reason);
  run.signal?.addEventListener('abort', cancel, { once: true });
  const outcome: DagOutcome = { end: { reason: 'completed' }, calls: [], usage: emptyUsage(), attempts: 0 };
  const running = new Map<string, Promise<[WorkflowStep, StepOutcome]>>();
  const blocked = new Set<string>();
  try {
    for (;;) {
      if (!inner.signal.aborted && outcome.end.reason !== 'error')
        await startReady(run, state, running, blocked, inner);
      if (running.size === 0) break;
      const [step, result] = await Promise.race(running.values());
      running.delete(step.id);
      await settle(run, state, outcome, step, result, blocked);
      if (outcome.end.reason === 'error') inner.abort();
    }
  } catch (error) {
    // The record failed (a journal that can no longer write): nothing more may start, and what runs is cancelled and
    // waited for, so no step acts after the caller has been told the run is over.
    inner.abort();
    await Promise.allSettled(running.values());
    throw error;
  } finally {
    run.signal?.removeEventListener('abort', cancel);
  }
  if (run.signal?.aborted && outcome.end.reason !== 'error') outcome.end = { reason: 'cancelled' };
  return outcome;
}

async function startReady(
  run: DagRun,
  state: DagState,
  running: Map<string, Promise<[WorkflowStep, StepOutcome]>>,
  blocked: Set<string>,
  inner: AbortController,
): Promise<void> {
  for (const step of run.steps) {
    if (running.size >= run.concurrency) return;
    if (step.id in state.outputs || running.has(step.id) || blocked.has(step.id)) continue;
    const needs = step.dependsOn ?? [];
    if (needs.some((id) => blocked.has(id))) {
      blocked.add(step.id);
      continue;
    }
    if (!needs.every((id) => id in state.outputs)) continue;
    const condition = needs.some((id) => state.skipped.has(id)) ? false : checkCondition(run, state, step, inner);
    if (typeof condition === 'object') {
      running.set(step.id, Promise.resolve([step, condition]));
      continue;
    }
    if (!condition) {
      await skip(run, state, step);
      continue;
    }
    const stepRun: StepRun = {
      ...run,
      outputs: { ...state.outputs },
      resumeData: state.answers.get(step.id),
      handle: state.handles.get(step.id),
      signal: inner.signal,
    };
    state.handles.delete(step.id);
    running.set(
      step.id,
      runStep(step, stepRun).then((result) => [step, result]),
    );
  }
}

// Skipping is recorded like finishing, so a resumed run does not evaluate the condition again.
async function skip(run: DagRun, state: DagState, step: WorkflowStep): Promise<void> {
  const kind = stepKind(step);
  const at = run.now();
  state.outputs[step.id] = null;
  state.skipped.add(step.id);
  const usage = emptyUsage();
  const base = { workflow: run.workflow, step: step.id, kind, attempt: 0, startedAt: new Date(at).toISOString() };
  run.emit({ type: 'workflow-step-finish', ...base, status: 'skipped', durationMs: 0, usage });
  await run.recorder.stepFinished({
    step: step.id,
    kind,
    status: 'skipped',
    output: null,
    attempt: 0,
    durationMs: 0,
    usage,
  });
}

async function settle(
  run: DagRun,
  state: DagState,
  outcome: DagOutcome,
  step: WorkflowStep,
  result: StepOutcome,
  blocked: Set<string>,
): Promise<void> {
  outcome.usage = addUsage(outcome.usage, result.usage);
  outcome.attempts += result.attempts;
  if (result.status === 'done') {
    const { output, usage, attempts, durationMs } = result;
    // Durable before any step that needs it starts.
    await run.recorder.stepFinished({
      step: step.id,
      kind: stepKind(step),
      status: 'done',
      output,
      attempt: attempts,
      durationMs,
      usage,
    });
    state.outputs[step.id] = output;
    state.answers.delete(step.id);
    outcome.calls.push(callRecord(step, result));
    return;
  }
  if (result.status === 'suspended') {
    blocked.add(step.id);
    if (result.handle) state.handles.set(step.id, result.handle);
    if (outcome.end.reason === 'completed')
      outcome.end = { reason: 'suspended', step: step.id, payload: result.payload };
    return;
  }
  if (result.error.code === 'aborted' && run.signal?.aborted) return;
  if (outcome.end.reason !== 'error') {
    const message = `Step "${step.id}" failed after ${result.attempts} attempt(s): ${result.error.message}`;
    outcome.end = { reason: 'error', step: step.id, error: { code: result.error.code, message } };
  }
}

function callRecord(step: WorkflowStep, result: Extract<StepOutcome, { status: 'done' }>): CallRecord {
  return {
    type: 'step',
    name: step.id,
    input: { kind: stepKind(step), dependsOn: [...(step.dependsOn ?? [])] },
    output: result.output,
    usage: result.usage,
    startedAt: new Date(result.startedAt).toISOString(),
    durationMs: result.durationMs,
  };
}

// A condition that throws fails its step, like a step that throws.
function checkCondition(
  run: DagRun,
  state: DagState,
  step: WorkflowStep,
  inner: AbortController,
): boolean | StepOutcome {
  if (!step.when) return true;
  try {
    return step.when(contextFor(run, state, inner)) === true;
  } catch (error) {
    const message = `its "when" condition threw: ${errorMessage(error)}`;
    return { status: 'failed', error: { code: 'invalid_argument', message }, usage: emptyUsage(), attempts: 0 };
  }
}

function contextFor(run: DagRun, state: DagState, inner: AbortController): StepContext {
  return {
    input: run.input,
    outputs: { ...state.outputs },
    attempt: 0,
    signal: inner.signal,
    suspend: () => {
      throw new Error('A condition cannot suspend the run; suspend from a step');
    },
  };
}

/** A fresh state, for a run that has done nothing yet. */
export function emptyDagState(): DagState {
  return { outputs: {}, skipped: new Set(), answers: new Map(), handles: new Map() };
}
