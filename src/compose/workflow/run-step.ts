import type { Suspended } from '../../agent/suspend.ts';
import type { AgentEvent, AgentResult } from '../../agent/types.ts';
import { backoffDelay } from '../../core/backoff.ts';
import type { ErrorCode } from '../../core/error-codes.ts';
import { AgencyError, isAbortError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/messages.ts';
import { addUsage, emptyUsage, type Usage } from '../../core/usage.ts';
import { runToolCall } from '../../tools/run-tool-call.ts';
import { isSuspendRequest, requestSuspend } from '../../tools/suspend-request.ts';
import type { WorkflowRecorder } from './recorder.ts';
import { type AgentStep, type StepContext, stepKind, type WorkflowStep } from './types.ts';

/** How one step ended, after its attempts. */
export type StepOutcome =
  | { status: 'done'; output: JsonValue; usage: Usage; attempts: number; startedAt: number; durationMs: number }
  | { status: 'suspended'; payload: JsonValue; usage: Usage; attempts: number; handle?: Suspended | undefined }
  | { status: 'failed'; error: { code: ErrorCode; message: string }; usage: Usage; attempts: number };

/** What running a step needs from its run. */
export type StepRun = {
  workflow: string;
  input: string;
  outputs: Readonly<Record<string, JsonValue>>;
  resumeData: JsonValue | undefined;
  /** A suspended agent step's handle, kept in this process: resuming goes through it rather than a new run. */
  handle: Suspended | undefined;
  signal: AbortSignal;
  recorder: WorkflowRecorder;
  emit: (event: AgentEvent) => void;
  now: () => number;
  random: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
};

type Attempt =
  | { ok: true; output: JsonValue; usage: Usage }
  | { ok: false; suspend: JsonValue; usage: Usage; handle?: Suspended | undefined }
  | { ok: false; error: { code: ErrorCode; message: string }; usage: Usage };

/** Runs a step, retrying a failed attempt with backoff as its `retry` allows; never throws. */
export async function runStep(step: WorkflowStep, run: StepRun): Promise<StepOutcome> {
  const kind = stepKind(step);
  const { attempts = 1, initialMs = 500, maxMs = 10_000 } = step.retry ?? {};
  const started = run.now();
  let usage = emptyUsage();
  for (let attempt = 1; ; attempt++) {
    const startedAt = run.now();
    const base = { workflow: run.workflow, step: step.id, kind, attempt, startedAt: iso(startedAt) };
    run.emit({ type: 'workflow-step-start', ...base });
    await run.recorder.stepStarted(step.id, kind, attempt);
    if (run.signal.aborted) {
      return {
        status: 'failed',
        error: { code: 'aborted', message: 'The workflow was cancelled' },
        usage,
        attempts: attempt,
      };
    }
    const result = await attemptStep(step, run, attempt);
    usage = addUsage(usage, result.usage);
    const durationMs = run.now() - startedAt;
    if (result.ok) {
      run.emit({ type: 'workflow-step-finish', ...base, status: 'done', durationMs, usage: result.usage });
      return { status: 'done', output: result.output, usage, attempts: attempt, startedAt: started, durationMs };
    }
    if ('suspend' in result) {
      run.emit({ type: 'workflow-suspended', workflow: run.workflow, step: step.id, payload: result.suspend });
      return { status: 'suspended', payload: result.suspend, usage, attempts: attempt, handle: result.handle };
    }
    const { error } = result;
    run.emit({ type: 'workflow-step-finish', ...base, status: 'failed', durationMs, usage: result.usage, error });
    if (attempt >= attempts || run.signal.aborted || error.code === 'aborted') {
      return { status: 'failed', error, usage, attempts: attempt };
    }
    const wait = backoffDelay(attempt, { initialMs, maxMs, random: run.random });
    run.recorder.attemptFailed(step.id, attempt, error, wait);
    try {
      await run.sleep(wait, run.signal);
    } catch {
      return {
        status: 'failed',
        error: { code: 'aborted', message: 'The workflow was cancelled' },
        usage,
        attempts: attempt,
      };
    }
  }
}

async function attemptStep(step: WorkflowStep, run: StepRun, attempt: number): Promise<Attempt> {
  const context: StepContext = {
    input: run.input,
    outputs: run.outputs,
    attempt,
    resumeData: run.resumeData,
    signal: run.signal,
    suspend: requestSuspend,
  };
  try {
    if ('agent' in step) return await runAgentStep(step, context, run);
    if ('tool' in step) {
      const args = step.args ? step.args(context) : {};
      const toolCallId = `${run.workflow}.${step.id}.${attempt}`;
      const outcome = await runToolCall(
        step.tool,
        { toolCallId, toolName: step.tool.name, input: args },
        { signal: run.signal, resumeData: run.resumeData, task: { input: run.input } },
      );
      if (outcome.suspend) return { ok: false, suspend: outcome.suspend.payload, usage: emptyUsage() };
      if (!outcome.ok)
        return { ok: false, error: outcome.error ?? failure('tool_failed', step.id), usage: emptyUsage() };
      return { ok: true, output: asJson(outcome.output, step.id), usage: emptyUsage() };
    }
    return { ok: true, output: asJson(await step.run(context), step.id), usage: emptyUsage() };
  } catch (error) {
    if (isSuspendRequest(error)) return { ok: false, suspend: error.payload, usage: emptyUsage() };
    const agencyError = AgencyError.from(error);
    const code = isAbortError(error) || run.signal.aborted ? 'aborted' : agencyError.code;
    return { ok: false, error: { code, message: agencyError.message }, usage: emptyUsage() };
  }
}

async function runAgentStep(step: AgentStep, context: StepContext, run: StepRun): Promise<Attempt> {
  const onEvent = (event: AgentEvent) => {
    run.recorder.stepEvent(step.id, event);
    run.emit({ type: 'workflow-step-event', workflow: run.workflow, step: step.id, event });
  };
  const options = { signal: run.signal, onEvent };
  let result: AgentResult;
  if (run.handle) {
    result = await run.handle.resume(run.resumeData, options);
  } else {
    const input = step.input ? step.input(context) : defaultAgentInput(step, context);
    const task = run.resumeData === undefined ? { input } : { input, context: { resumeData: run.resumeData } };
    result = await step.agent.execute(task, options);
  }
  if (result.finishReason === 'suspended' && result.suspended) {
    return { ok: false, suspend: result.suspended.payload, usage: result.usage, handle: result.suspended };
  }
  if (result.finishReason === 'error' || result.finishReason === 'aborted') {
    return { ok: false, error: result.error ?? failure('internal', step.id), usage: result.usage };
  }
  const output = result.object === undefined ? result.output : asJson(result.object, step.id);
  return { ok: true, output, usage: result.usage };
}

function defaultAgentInput(step: AgentStep, context: StepContext): string {
  const needs = step.dependsOn ?? [];
  if (needs.length === 0) return context.input;
  const earlier = Object.fromEntries(needs.map((id) => [id, context.outputs[id] ?? null]));
  return `${context.input}\n\nOutputs of earlier steps:\n${JSON.stringify(earlier, null, 2)}`;
}

// A step's output is journaled and handed to later steps as JSON, so it must survive the trip unchanged in meaning.
function asJson(value: unknown, step: string): JsonValue {
  if (value === undefined) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw new AgencyError('invalid_argument', `Step "${step}" returned a value that cannot be written as JSON`, {
      cause,
    });
  }
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

function failure(code: ErrorCode, step: string) {
  return { code, message: `Step "${step}" failed without saying why` };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
