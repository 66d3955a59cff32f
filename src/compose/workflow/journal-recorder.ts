import { canonicalDigest } from '../../core/canonical-json.ts';
import type { JsonValue } from '../../core/messages.ts';
import type { Redactor } from '../../core/redact.ts';
import { usageToJson } from '../../task/budgets.ts';
import type { Journal } from '../../task/journal/journal.ts';
import { delegationFrame } from './delegation-frames.ts';
import type { RunEnd, StepRecord, WorkflowRecorder } from './recorder.ts';

/** The `phase` of every step frame a workflow journals, telling them from a governed run's phases. */
export const WORKFLOW_PHASE = 'workflow';

/**
 * Journals a workflow run on the runner's `agent.events.v1` journal: `phase.start` and `phase.finish` per step (the
 * start is fsynced before the step acts; the finish holds the output and its digest, and is fsynced before any step
 * that needs it starts), a `warning` per failed attempt that is retried, a network's delegations inside a step
 * (`agent.start`, `agent.event`, `agent.finish`), and `finish` (after `error` when a step failed) at the end. A
 * suspension is a `finish` with reason `stopped` and the step and payload in `suspended`.
 */
export function journalRecorder(journal: Journal, redactor: Redactor): WorkflowRecorder {
  return {
    async stepStarted(step, kind, attempt) {
      journal.append({
        type: 'phase.start',
        step,
        step_kind: kind,
        message: `Step ${step} started (attempt ${attempt})`,
        data: { phase: WORKFLOW_PHASE, attempt },
      });
      await journal.flush();
    },
    async stepFinished(record: StepRecord) {
      // The digest covers what is written, so a resume can tell an output edited on disk from the one journaled.
      const output = redactor.redact<JsonValue>(record.output);
      journal.append({
        type: 'phase.finish',
        step: record.step,
        step_kind: record.kind,
        message: `Step ${record.step} ${record.status === 'done' ? 'finished' : 'skipped'}`,
        data: {
          phase: WORKFLOW_PHASE,
          status: record.status,
          output,
          output_digest: canonicalDigest(output),
          attempt: record.attempt,
          duration_ms: Math.round(record.durationMs),
          usage: usageToJson(record.usage),
        },
      });
      await journal.flush();
    },
    attemptFailed(step, attempt, error, retryInMs) {
      journal.append({
        type: 'warning',
        step,
        message: `Step ${step} attempt ${attempt} failed (${error.code}: ${error.message}); retrying in ${retryInMs} ms`,
        error,
        data: { phase: WORKFLOW_PHASE, attempt, retry_in_ms: retryInMs },
      });
    },
    stepEvent(step, event) {
      // No flush of its own: the group commit writes it within ~20 ms, and the step's finish makes it durable.
      const frame = delegationFrame(step, event);
      if (frame) journal.append(frame);
    },
    async ended(end: RunEnd) {
      if (end.reason === 'error') {
        journal.append({
          type: 'error',
          ...(end.step ? { step: end.step } : {}),
          error: end.error,
          message: end.error.message,
        });
      }
      journal.append(finishFrame(end));
      await journal.flush();
    },
  };
}

function finishFrame(end: RunEnd) {
  switch (end.reason) {
    case 'completed':
      return {
        type: 'finish',
        message: 'Workflow completed',
        data: { reason: 'completed', output: end.output },
      } as const;
    case 'suspended':
      return {
        type: 'finish',
        step: end.step,
        message: `Suspended at step ${end.step}, waiting for input`,
        data: { reason: 'stopped', suspended: { step: end.step, payload: end.payload } },
      } as const;
    case 'error':
      return { type: 'finish', message: 'Workflow failed', data: { reason: 'error' } } as const;
    case 'cancelled':
      return { type: 'finish', message: 'Workflow cancelled', data: { reason: 'cancelled' } } as const;
  }
}
