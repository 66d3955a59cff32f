import { SUSPENDED_RUN_SCHEMA, type Suspended } from '../../agent/suspend.ts';
import type { AgentResult, ExecuteOptions } from '../../agent/types.ts';
import { AgencyError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/messages.ts';
import type { DagOutcome, DagState } from './run-dag.ts';
import type { WorkflowStep } from './types.ts';

/** What a result is built from, besides the run's outcome. */
export type ResultParts = {
  id: string;
  workflow: string;
  input: string;
  startedAt: number;
  finishedAt: number;
  output: string;
  warnings: string[];
  suspended?: Suspended | undefined;
};

/** The workflow's `AgentResult`: its answer, every finished step as a `step` call, and the usage of all of them. */
export function workflowResult(outcome: DagOutcome, parts: ResultParts): AgentResult {
  const { end } = outcome;
  const finishReason =
    end.reason === 'completed'
      ? 'stop'
      : end.reason === 'suspended'
        ? 'suspended'
        : end.reason === 'cancelled'
          ? 'aborted'
          : 'error';
  const error =
    end.reason === 'error'
      ? end.error
      : end.reason === 'cancelled'
        ? { code: 'aborted' as const, message: `Workflow "${parts.workflow}" was cancelled` }
        : undefined;
  return {
    id: parts.id,
    output: parts.output,
    attachments: [],
    usage: outcome.usage,
    calls: outcome.calls,
    finishReason,
    iterations: outcome.calls.length,
    startedAt: new Date(parts.startedAt).toISOString(),
    finishedAt: new Date(parts.finishedAt).toISOString(),
    ...(error ? { error } : {}),
    retryInfo: { attempts: outcome.attempts, retries: [] },
    messages: [
      { role: 'user', content: [{ type: 'text', text: parts.input }] },
      ...(parts.output
        ? [{ role: 'assistant' as const, content: [{ type: 'text' as const, text: parts.output }] }]
        : []),
    ],
    warnings: parts.warnings,
    ...(parts.suspended ? { suspended: parts.suspended } : {}),
  };
}

/** The default answer: the output of the last step declared that ran, as text. */
export function lastOutput(steps: readonly WorkflowStep[], state: DagState): string {
  for (const step of [...steps].reverse()) {
    if (!(step.id in state.outputs) || state.skipped.has(step.id)) continue;
    const output = state.outputs[step.id];
    return typeof output === 'string' ? output : JSON.stringify(output);
  }
  return '';
}

/** What a suspended workflow's handle does when resumed. */
export type SuspendedWorkflow = {
  workflow: string;
  step: string;
  payload: JsonValue;
  ttlMs: number;
  now: () => number;
  newId: () => string;
  state: () => JsonValue;
  resume: (data: JsonValue | undefined, options: ExecuteOptions | undefined) => Promise<AgentResult>;
};

/** The handle of a suspended workflow run: resumed once, before it expires, or released. */
export function suspendedHandle(run: SuspendedWorkflow): Suspended {
  const id = run.newId();
  const expiresAt = run.now() + run.ttlMs;
  let used = false;
  return {
    id,
    payload: run.payload,
    expiresAt: new Date(expiresAt).toISOString(),
    resume(data, options) {
      if (used)
        return Promise.reject(
          new AgencyError('suspension_used', `Suspended run ${id} was already resumed or released`),
        );
      if (run.now() >= expiresAt) {
        return Promise.reject(
          new AgencyError('suspension_expired', `Suspended run ${id} expired at ${new Date(expiresAt).toISOString()}`),
        );
      }
      used = true;
      return run.resume(data, options);
    },
    release: () => {
      used = true;
    },
    serialize: () => ({
      schema: SUSPENDED_RUN_SCHEMA,
      agent: run.workflow,
      suspendedAt: new Date(run.now()).toISOString(),
      payload: run.payload,
      state: run.state(),
    }),
  };
}
