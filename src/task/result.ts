import type { ErrorCode } from '../core/error-codes.ts';
import { emptyUsage, type Usage, addUsage } from '../core/usage.ts';
import { usageFromJson } from './budgets.ts';
import type { EventFrame } from './contracts/events.ts';
import type { StopReason } from './contracts/state.ts';
import type { DeliverableRef } from './deliverables.ts';

/** How much of a result to return. */
export type ResultView = 'minimal' | 'summary' | 'full';

/** What one step of a run did (seed 000's StepReport). */
export type StepReport = {
  id: string;
  name: string;
  kind: string;
  status: 'completed' | 'failed' | 'running';
  startedAt?: string;
  endedAt?: string;
  toolsUsed: string[];
  toolCalls: number;
  toolsBlocked: number;
  outputRef?: string;
  usage: Usage;
};

/** What a governed run produced (seed 000's DoTaskResult). */
export type DoTaskResult = {
  taskId: string;
  loopName: string;
  loopVersion: string;
  /** SHA-256 over the loop's name and version and the task spec. */
  loopSignature: string;
  progressDir: string;
  finishReason: StopReason;
  usage: Usage;
  /** Present in the `summary` and `full` views. */
  outputText?: string;
  deliverables?: DeliverableRef[];
  verified?: boolean;
  planSig?: string | null;
  /** Present in the `full` view. */
  steps?: StepReport[];
  warnings?: string[];
  error?: { code: ErrorCode; message: string };
  startedAt: string;
  completedAt: string;
};

/** Narrows a full result to a view: `minimal` (ids, where, why it ended, usage), `summary` (+ output, deliverables, verify), `full`. */
export function viewOf(result: DoTaskResult, view: ResultView): DoTaskResult {
  const { outputText, deliverables, verified, planSig, steps, warnings, ...minimal } = result;
  if (view === 'minimal') return minimal;
  const summary = {
    ...minimal,
    ...(outputText === undefined
      ? {}
      : { outputText: outputText.length > 2000 ? `${outputText.slice(0, 1999)}…` : outputText }),
    ...(deliverables ? { deliverables } : {}),
    ...(verified === undefined ? {} : { verified }),
    ...(planSig === undefined ? {} : { planSig }),
  };
  if (view === 'summary') return summary;
  return {
    ...summary,
    ...(outputText === undefined ? {} : { outputText }),
    ...(steps ? { steps } : {}),
    ...(warnings ? { warnings } : {}),
  };
}

/** Step reports from the journal: one per step id, with its tool calls and usage. */
export function stepReports(frames: readonly EventFrame[]): StepReport[] {
  const reports = new Map<string, StepReport>();
  const report = (frame: EventFrame): StepReport | undefined => {
    if (!frame.step) return undefined;
    let found = reports.get(frame.step);
    if (!found) {
      found = {
        id: frame.step,
        name: frame.step.replace(/^\d+-/, ''),
        kind: frame.step_kind ?? 'step',
        status: 'running',
        toolsUsed: [],
        toolCalls: 0,
        toolsBlocked: 0,
        usage: emptyUsage(),
      };
      reports.set(frame.step, found);
    }
    return found;
  };
  for (const frame of frames) {
    const step = report(frame);
    if (!step) continue;
    const data = frame.data ?? {};
    if (frame.type === 'phase.start') {
      step.startedAt ??= frame.ts;
      step.kind = frame.step_kind ?? step.kind;
    } else if (frame.type === 'phase.finish') {
      step.status = 'completed';
      step.endedAt = frame.ts;
      if (typeof data.output_ref === 'string') step.outputRef = data.output_ref;
    } else if (frame.type === 'tool.call') {
      step.toolCalls++;
      const tool = String(data.tool);
      if (!step.toolsUsed.includes(tool)) step.toolsUsed.push(tool);
    } else if (frame.type === 'tool.blocked') {
      step.toolsBlocked++;
    } else if (frame.type === 'usage.delta' && frame.usage_delta) {
      step.usage = addUsage(step.usage, usageFromJson(frame.usage_delta));
    } else if (frame.type === 'error') {
      step.status = 'failed';
    }
  }
  return [...reports.values()];
}
