import { builtinPromptSet } from '../prompts/builtin-prompts.ts';
import { AgencyError, errorMessage } from '../core/errors.ts';
import { type RunEnd, traceAgentRun } from '../obs/agent-spans.ts';
import type { ToolCallOutcome } from '../tools/run-tool-call.ts';
import { isoTime } from './iso-time.ts';
import { callModel } from './model-turn.ts';
import { foldPlans } from './plan-execution.ts';
import type { Processor, ProcessorStage } from './processors.ts';
import type { RunContext } from './run-context.ts';
import {
  acceptResponse,
  appendMessage,
  appendToolResults,
  compress,
  createPromptCache,
  type Ending,
  endingOfStop,
  isStop,
  modelTurnOptions,
  needsCompression,
  postHookInput,
  postToolHookInput,
  preHookInput,
  recordModelTurn,
  replaceMessages,
  retryRecorder,
} from './run-stages.ts';
import type { RunState } from './run-state.ts';
import { runToolsStage } from './tools-stage.ts';
import { agentResult } from './result.ts';
import type { AgentFinishReason, AgentResult } from './types.ts';

/**
 * The instruction appended when the iteration cap is reached, before one last call without tools: the built-in
 * `agent.synthesis` prompt (an agent given other `prompts` uses its own version).
 */
export const SYNTHESIS_INSTRUCTION = builtinPromptSet().render('agent.synthesis').text;

/**
 * Drives a run from its current stage to the end: a final answer, a halt, a suspension, an error or an abort.
 * Never throws: every failure ends up in the result. Each execution is an `invoke_agent` span (see src/obs).
 */
export function runLoop(context: RunContext, state: RunState): Promise<AgentResult> {
  return traceAgentRun({ name: state.agent, runId: state.runId }, () => runToEnd(context, state), runEnd);
}

async function runToEnd(context: RunContext, state: RunState): Promise<AgentResult> {
  let ending: Ending;
  try {
    ending = await advance(context, state);
  } catch (error) {
    const wrapped = AgencyError.from(error);
    ending = { reason: wrapped.code === 'aborted' || context.signal.aborted ? 'aborted' : 'error', error: wrapped };
  }
  return finish(context, state, ending);
}

async function advance(context: RunContext, state: RunState): Promise<Ending> {
  const prompt = createPromptCache();
  const onRetry = retryRecorder(context, state);
  const hooks = hooksOf(context.processors);
  for (;;) {
    if (context.signal.aborted)
      throw AgencyError.from(context.signal.reason ?? new AgencyError('aborted', 'aborted'), 'aborted');
    const stage = state.stage;
    if (context.checkpoint && isBoundary(stage)) await context.checkpoint(state);
    // Each stage's awaits stay in this switch; its other work is in ./run-stages.ts.
    switch (stage.at) {
      case 'pre': {
        for (; stage.processor < hooks.pre.length; stage.processor++) {
          const input = preHookInput(context, state);
          const verdict = await hooks.pre[stage.processor]?.pre?.(input);
          if (isStop(verdict)) return endingOfStop(verdict);
          if (verdict) replaceMessages(state, verdict.messages);
        }
        state.stage = { at: 'model', synthesis: stage.synthesis === true };
        break;
      }
      case 'model': {
        if (needsCompression(context, state)) await compress(context, state);
        const turn = await callModel(modelTurnOptions(context, state, stage.synthesis, prompt, onRetry));
        recordModelTurn(context, state, turn, stage.synthesis);
        break;
      }
      case 'post': {
        for (; stage.processor < hooks.post.length; stage.processor++) {
          const input = postHookInput(context, state, stage);
          const verdict = await hooks.post[stage.processor]?.post?.(input);
          if (isStop(verdict)) return endingOfStop(verdict);
          if (verdict) stage.response = verdict.response;
        }
        const ending = acceptResponse(context, state, stage.response, stage.synthesis);
        if (ending) return ending;
        break;
      }
      case 'tools': {
        const outcome = await runToolsStage(context, state, stage, hooks.preTool);
        if (outcome.kind === 'halt') return { reason: 'halted', output: outcome.text };
        if (outcome.kind === 'suspend') return { reason: 'suspended', payload: outcome.payload };
        const { calls, plans } = stage;
        state.stage = {
          at: 'postTool',
          calls,
          outcomes: outcome.outcomes,
          call: 0,
          processor: 0,
          ...(plans ? { plans } : {}),
        };
        break;
      }
      case 'postTool': {
        for (; stage.call < stage.calls.length; stage.call++, stage.processor = 0) {
          for (; stage.processor < hooks.postTool.length; stage.processor++) {
            const input = postToolHookInput(context, state, stage);
            const verdict = await hooks.postTool[stage.processor]?.postTool?.(input);
            if (isStop(verdict)) return endingOfStop(verdict);
            if (verdict) stage.outcomes[stage.call] = verdict.outcome;
          }
        }
        endIteration(context, state, foldPlans(stage.outcomes, stage.plans));
        break;
      }
    }
  }
}

/** Adds the tool results to the history and starts the next iteration, or the synthesis call at the cap. */
function endIteration(context: RunContext, state: RunState, outcomes: ToolCallOutcome[]): void {
  appendToolResults(context, state, outcomes);
  state.iteration++;
  if (state.iteration >= context.maxIterations) {
    appendMessage(state, {
      role: 'user',
      content: [{ type: 'text', text: context.prompts.render('agent.synthesis').text }],
    });
    state.stage = { at: 'model', synthesis: true };
  } else {
    state.stage = { at: 'pre', processor: 0 };
  }
}

// The processors of each stage, picked once per execution rather than at every step.
function hooksOf(processors: readonly Processor[]): Record<ProcessorStage, Processor[]> {
  return {
    pre: processors.filter((processor) => processor.pre),
    post: processors.filter((processor) => processor.post),
    preTool: processors.filter((processor) => processor.preTool),
    postTool: processors.filter((processor) => processor.postTool),
  };
}

// Checkpoints are taken where a resumed run can pick up without repeating visible work: before each iteration's
// processors and model call, and once a response with tool calls has been accepted, before any tool runs.
function isBoundary(stage: RunState['stage']): boolean {
  if (stage.at === 'pre') return stage.processor === 0;
  return (
    stage.at === 'tools' &&
    stage.gate.call === 0 &&
    stage.gate.processor === 0 &&
    stage.outcomes.every((outcome) => outcome === null)
  );
}

// What the run's span records of how it ended.
function runEnd(result: AgentResult): RunEnd {
  const { finishReason, error, usage } = result;
  return { finishReason, error, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
}

function finish(context: RunContext, state: RunState, ending: Ending): AgentResult {
  let suspended: AgentResult['suspended'];
  let endingError = ending.error;
  if (ending.reason === 'suspended') {
    try {
      state.suspendPayload = ending.payload ?? null;
      suspended = context.suspend(state, ending.payload ?? null);
      context.emit?.({ type: 'suspended', id: suspended.id, payload: suspended.payload });
    } catch (error) {
      endingError = AgencyError.from(error);
    }
  }
  const reason: AgentFinishReason = ending.reason === 'suspended' && !suspended ? 'error' : ending.reason;
  if (ending.output !== undefined && reason === 'halted')
    state.messages.push({ role: 'assistant', content: [{ type: 'text', text: ending.output }] });
  const result = agentResult(state, { ...ending, reason, error: endingError, suspended }, isoTime(context.now()));
  if (endingError && reason !== 'aborted')
    context.emit?.({ type: 'error', error: { code: endingError.code, message: errorMessage(endingError) } });
  context.emit?.({ type: 'finish', result });
  return result;
}
