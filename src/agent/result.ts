import type { AgencyError } from '../core/errors.ts';
import type { RunState } from './run-state.ts';
import type { AgentFinishReason, AgentResult } from './types.ts';

/** How a run ended, as the one place that builds an `AgentResult` sees it. */
export type ResultEnding = {
  reason: AgentFinishReason;
  output?: string;
  object?: unknown;
  error?: AgencyError | undefined;
  suspended?: AgentResult['suspended'] | undefined;
};

/** The fields of a run that a result reports; a run that never started has only the first three. */
export type ResultState = Pick<RunState, 'runId' | 'startedAt' | 'usage'> &
  Partial<Pick<RunState, 'messages' | 'calls' | 'iteration' | 'retryInfo' | 'warnings' | 'thinking' | 'attachments'>>;

/** The one builder of `AgentResult`: for finished runs, runs that failed before starting, and failed spawns. */
export function agentResult<OBJECT = unknown>(
  state: ResultState,
  ending: ResultEnding,
  finishedAt: string,
): AgentResult<OBJECT> {
  const result: AgentResult<OBJECT> = {
    id: state.runId,
    output: ending.output ?? '',
    attachments: state.attachments ?? [],
    usage: state.usage,
    calls: state.calls ?? [],
    finishReason: ending.reason,
    iterations: state.iteration ?? 0,
    startedAt: state.startedAt,
    finishedAt,
    retryInfo: state.retryInfo ?? { attempts: 0, retries: [] },
    messages: state.messages ?? [],
    warnings: state.warnings ?? [],
  };
  if ('object' in ending) result.object = ending.object as OBJECT;
  if (state.thinking !== undefined) result.thinking = state.thinking;
  if (ending.error) result.error = { code: ending.error.code, message: ending.error.message };
  if (ending.suspended) result.suspended = ending.suspended;
  return result;
}

/** True when the run produced an answer: it stopped, hit the iteration cap and answered, or was halted. */
export function answered(result: Pick<AgentResult, 'finishReason'>): boolean {
  return result.finishReason === 'stop' || result.finishReason === 'max-iterations' || result.finishReason === 'halted';
}
