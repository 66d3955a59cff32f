import type { AgentEvent } from '../../agent/types.ts';
import type { ErrorCode } from '../../core/error-codes.ts';
import type { JsonValue } from '../../core/messages.ts';
import type { Usage } from '../../core/usage.ts';
import type { StepKind } from './types.ts';

/** How a step ended, as recorded. */
export type StepRecord = {
  step: string;
  kind: StepKind;
  status: 'done' | 'skipped';
  output: JsonValue;
  attempt: number;
  durationMs: number;
  usage: Usage;
};

/** How a run ended, as recorded. */
export type RunEnd =
  | { reason: 'completed'; output: string }
  | { reason: 'suspended'; step: string; payload: JsonValue }
  | { reason: 'error'; step?: string; error: { code: ErrorCode; message: string } }
  | { reason: 'cancelled' };

/**
 * Where a workflow run keeps its record. In memory nothing is kept; a durable run journals each call
 * (`journalRecorder`), and a method that returns a promise resolves once what it recorded is durable.
 */
export type WorkflowRecorder = {
  /** Resolves once the start is durable: a step acts only after its start is on record. */
  stepStarted(step: string, kind: StepKind, attempt: number): Promise<void>;
  /** Resolves once the step's output is durable: no later step sees it before then. */
  stepFinished(record: StepRecord): Promise<void>;
  attemptFailed(step: string, attempt: number, error: { code: ErrorCode; message: string }, retryInMs: number): void;
  /** An event of an agent step's run, as it emitted it; a durable run keeps the delegations among them. */
  stepEvent(step: string, event: AgentEvent): void;
  ended(end: RunEnd): Promise<void>;
};

/** The recorder of a run that is kept only in memory. */
export const memoryRecorder: WorkflowRecorder = {
  stepStarted: () => Promise.resolve(),
  stepFinished: () => Promise.resolve(),
  attemptFailed: () => undefined,
  stepEvent: () => undefined,
  ended: () => Promise.resolve(),
};
