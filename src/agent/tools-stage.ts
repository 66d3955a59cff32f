import type { JsonValue, ToolCallPart } from '../core/messages.ts';
import { emptyUsage } from '../core/usage.ts';
import { traceToolCall } from '../obs/agent-spans.ts';
import type { ToolCallOutcome } from '../tools/run-tool-call.ts';
import { isoTime } from './iso-time.ts';
import { isHalt, isSuspend, type Processor } from './processors.ts';
import { type RunContext, takeResumeData } from './run-context.ts';
import type { RunStage, RunState } from './run-state.ts';
import { runPool } from './tool-pool.ts';

type ToolsStage = Extract<RunStage, { at: 'tools' }>;

/** How the tools stage ended: all calls have outcomes, or the run must suspend or halt. */
export type ToolsStageResult =
  | { kind: 'done'; outcomes: ToolCallOutcome[] }
  | { kind: 'suspend'; payload: JsonValue }
  | { kind: 'halt'; text: string };

/**
 * Runs the `preTool` processors for each call in order, then every call that is still pending on the parallel pool.
 * Results keep the order of the calls. A blocked call gets an error result without running.
 */
export async function runToolsStage(
  context: RunContext,
  state: RunState,
  stage: ToolsStage,
  hooks: readonly Processor[],
): Promise<ToolsStageResult> {
  if (hooks.length > 0) {
    const gate = await runPreTool(context, state, stage, hooks);
    if (gate) return gate;
  } else if (stage.gate.call < stage.calls.length) {
    stage.gate.call = stage.calls.length;
    stage.gate.processor = 0;
  }

  const pending: number[] = [];
  stage.outcomes.forEach((outcome, index) => {
    if (outcome === null) pending.push(index);
  });
  const resumeCall = stage.resumeCall;
  const resumeData = resumeCall === undefined ? undefined : takeResumeData(context);
  stage.resumeCall = undefined;
  await runPool(pending, async (index) => {
    const call = stage.calls[index] as ToolCallPart;
    const blocked = stage.blocked[index];
    context.emit?.({
      type: 'tool-call-start',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
    });
    const startedAt = context.now();
    const preset = stage.preset[index];
    const outcome =
      blocked != null
        ? blockedOutcome(call, blocked)
        : preset != null
          ? { toolCallId: call.toolCallId, toolName: call.toolName, ...preset, durationMs: 0 }
          : await traceToolCall({ name: call.toolName, callId: call.toolCallId, input: call.input }, () =>
              context.registry.run(call, {
                signal: context.signal,
                task: state.task,
                resumeData: index === resumeCall ? resumeData : undefined,
              }),
            );
    stage.outcomes[index] = outcome.suspend ? null : outcome;
    if (outcome.suspend) {
      stage.resumeCall ??= index;
      if (stage.resumeCall === index) state.suspendPayload = outcome.suspend.payload;
      return;
    }
    state.calls.push({
      type: 'tool',
      name: call.toolName,
      toolCallId: call.toolCallId,
      input: call.input,
      output: outcome.output,
      ...(outcome.error ? { error: outcome.error } : {}),
      usage: ZERO_USAGE,
      startedAt: isoTime(startedAt),
      durationMs: outcome.durationMs,
    });
    context.emit?.({
      type: 'tool-call-result',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: outcome.ok ? outcome.output : outcome.modelOutput,
      ...(outcome.error ? { error: outcome.error } : {}),
      durationMs: outcome.durationMs,
    });
  });
  if (stage.resumeCall !== undefined) {
    // Several calls may ask for input; the first in call order suspends the run, the others run again on resume.
    const first = stage.outcomes.findIndex((outcome) => outcome === null);
    stage.resumeCall = first;
    return { kind: 'suspend', payload: state.suspendPayload ?? null };
  }
  return { kind: 'done', outcomes: stage.outcomes as ToolCallOutcome[] };
}

async function runPreTool(
  context: RunContext,
  state: RunState,
  stage: ToolsStage,
  hooks: readonly Processor[],
): Promise<ToolsStageResult | undefined> {
  for (; stage.gate.call < stage.calls.length; stage.gate.call++, stage.gate.processor = 0) {
    for (; stage.gate.processor < hooks.length; stage.gate.processor++) {
      const call = stage.calls[stage.gate.call] as ToolCallPart;
      const resumeData = takeResumeData(context);
      const verdict = await hooks[stage.gate.processor]?.preTool?.({
        task: state.task,
        iteration: state.iteration,
        call,
        resumeData,
      });
      if (!verdict) continue;
      if (isHalt(verdict)) return { kind: 'halt', text: verdict.halt };
      if (isSuspend(verdict)) return { kind: 'suspend', payload: verdict.suspend };
      if ('block' in verdict) {
        stage.blocked[stage.gate.call] = verdict.block;
        break;
      }
      if ('result' in verdict) {
        stage.preset[stage.gate.call] = verdict.result;
        break;
      }
      stage.calls[stage.gate.call] = verdict.call;
    }
  }
  return undefined;
}

function blockedOutcome(call: ToolCallPart, reason: string): ToolCallOutcome {
  const message = `Tool "${call.toolName}" was blocked: ${reason}`;
  return {
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    ok: false,
    error: { code: 'policy_denied', message },
    modelOutput: { type: 'error-text', value: message },
    durationMs: 0,
  };
}

const ZERO_USAGE = Object.freeze(emptyUsage());
