import type { LanguageModelV4Message } from '@ai-sdk/provider';
import { AgencyError, errorMessage } from '../core/errors.ts';
import type { AssistantMessage, JsonValue, Message, ToolCallPart, ToolMessage } from '../core/messages.ts';
import { toV4Prompt } from '../core/messages-v4.ts';
import { addUsage, usageFromV4 } from '../core/usage.ts';
import type { ModelRequest } from '../model/call-model.ts';
import { addAttachments, attachmentsOfOutput } from './attachments.ts';
import { compressHistory } from './compression.ts';
import { truncateForHistory } from './history.ts';
import { isoTime } from './iso-time.ts';
import { callModel } from './model-turn.ts';
import { isHalt, isSuspend, type Processor, type ProcessorStage } from './processors.ts';
import { type RunContext, takeResumeData } from './run-context.ts';
import { messageChars, type RunState } from './run-state.ts';
import { runToolsStage } from './tools-stage.ts';
import type { AgentFinishReason, AgentResult, Attachment } from './types.ts';

/** The instruction appended when the iteration cap is reached, before one last call without tools. */
export const SYNTHESIS_INSTRUCTION =
  'You have reached the maximum number of tool-calling steps. Do not call any more tools. Using what you have ' +
  'gathered so far, give your best final answer now.';

type Ending = { reason: AgentFinishReason; output?: string; error?: AgencyError; payload?: JsonValue };

/**
 * Drives a run from its current stage to the end: a final answer, a halt, a suspension, an error or an abort.
 * Never throws: every failure ends up in the result.
 */
export async function runLoop(context: RunContext, state: RunState): Promise<AgentResult> {
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
  const hooks = hooksOf(context.processors);
  for (;;) {
    if (context.signal.aborted)
      throw AgencyError.from(context.signal.reason ?? new AgencyError('aborted', 'aborted'), 'aborted');
    const stage = state.stage;
    if (context.checkpoint && isBoundary(stage)) await context.checkpoint(state);
    switch (stage.at) {
      case 'pre': {
        for (; stage.processor < hooks.pre.length; stage.processor++) {
          const resumeData = takeResumeData(context);
          const verdict = await hooks.pre[stage.processor]?.pre?.({
            task: state.task,
            iteration: state.iteration,
            messages: state.messages,
            ...(resumeData === undefined ? {} : { resumeData }),
          });
          if (!verdict) continue;
          if (isHalt(verdict)) return { reason: 'halted', output: verdict.halt };
          if (isSuspend(verdict)) return { reason: 'suspended', payload: verdict.suspend };
          replaceMessages(state, verdict.messages);
        }
        state.stage = { at: 'model', synthesis: false };
        break;
      }
      case 'model': {
        if (context.compressThreshold >= 0 && state.historyChars > context.compressThreshold)
          await compress(context, state);
        // A fresh array per call: the model (or a recorder) may keep the request it was given.
        const request: ModelRequest = { prompt: prompt.of(state.messages).slice(), ...context.params };
        if (context.registry.names().length > 0) {
          request.tools = context.registry.definitions() as ModelRequest['tools'];
          if (stage.synthesis) request.toolChoice = { type: 'none' };
        }
        const turn = await callModel({
          caller: context.caller,
          request,
          signal: context.signal,
          ...(context.catalog ? { catalog: context.catalog } : {}),
          ...(context.streaming && context.emit ? { onTextDelta: textDelta(context) } : {}),
          onRetry: (retry) => {
            state.retryInfo.retries.push(retry);
            state.retryInfo.lastError = retry.message;
            context.emit?.({ type: 'retry', retry });
          },
        });
        state.retryInfo.attempts += turn.attempts;
        state.usage = addUsage(state.usage, turn.usage);
        const calls = turn.response.content.filter((part): part is ToolCallPart => part.type === 'tool-call').length;
        context.emit?.({
          type: 'step-finish',
          iteration: state.iteration,
          usage: turn.usage,
          toolCalls: calls,
          finishReason: turn.finishReason,
        });
        noteThinking(context, state, turn.response);
        state.stage = { at: 'post', processor: 0, response: turn.response, synthesis: stage.synthesis };
        break;
      }
      case 'post': {
        for (; stage.processor < hooks.post.length; stage.processor++) {
          const resumeData = takeResumeData(context);
          const verdict = await hooks.post[stage.processor]?.post?.({
            task: state.task,
            iteration: state.iteration,
            response: stage.response,
            ...(resumeData === undefined ? {} : { resumeData }),
          });
          if (!verdict) continue;
          if (isHalt(verdict)) return { reason: 'halted', output: verdict.halt };
          if (isSuspend(verdict)) return { reason: 'suspended', payload: verdict.suspend };
          stage.response = verdict.response;
        }
        const ending = acceptResponse(context, state, stage.response, stage.synthesis);
        if (ending) return ending;
        break;
      }
      case 'tools': {
        const outcome = await runToolsStage(context, state, stage, hooks.preTool);
        if (outcome.kind === 'halt') return { reason: 'halted', output: outcome.text };
        if (outcome.kind === 'suspend') return { reason: 'suspended', payload: outcome.payload };
        state.stage = { at: 'postTool', calls: stage.calls, outcomes: outcome.outcomes, call: 0, processor: 0 };
        break;
      }
      case 'postTool': {
        for (; stage.call < stage.calls.length; stage.call++, stage.processor = 0) {
          for (; stage.processor < hooks.postTool.length; stage.processor++) {
            const resumeData = takeResumeData(context);
            const verdict = await hooks.postTool[stage.processor]?.postTool?.({
              task: state.task,
              iteration: state.iteration,
              call: stage.calls[stage.call] as ToolCallPart,
              outcome: stage.outcomes[stage.call] as (typeof stage.outcomes)[number],
              ...(resumeData === undefined ? {} : { resumeData }),
            });
            if (!verdict) continue;
            if (isHalt(verdict)) return { reason: 'halted', output: verdict.halt };
            if (isSuspend(verdict)) return { reason: 'suspended', payload: verdict.suspend };
            stage.outcomes[stage.call] = verdict.outcome;
          }
        }
        appendToolResults(context, state, stage.outcomes);
        state.iteration++;
        if (state.iteration >= context.maxIterations) {
          appendMessage(state, { role: 'user', content: [{ type: 'text', text: SYNTHESIS_INSTRUCTION }] });
          state.synthesized = true;
          state.stage = { at: 'model', synthesis: true };
        } else {
          state.stage = { at: 'pre', processor: 0 };
        }
        break;
      }
    }
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

/** Appends the model's answer; returns the ending when there are no tool calls to run. */
function acceptResponse(
  context: RunContext,
  state: RunState,
  response: AssistantMessage,
  synthesis: boolean,
): Ending | undefined {
  const calls = response.content.filter(
    (part): part is ToolCallPart => part.type === 'tool-call' && !part.providerExecuted,
  );
  const files = response.content.filter((part): part is Attachment => part.type === 'image' || part.type === 'file');
  if (files.length > 0) collectAttachments(context, state, files);
  if (calls.length === 0 || synthesis) {
    // A tool call left unanswered would make the history invalid for the next request, so a synthesis answer keeps
    // its text only.
    const kept = synthesis
      ? { ...response, content: response.content.filter((part) => part.type !== 'tool-call') }
      : response;
    appendMessage(state, kept);
    return { reason: synthesis ? 'max-iterations' : 'stop', output: textOfResponse(kept) };
  }
  state.iterationStarts.push(state.messages.length);
  appendMessage(state, response);
  state.stage = {
    at: 'tools',
    calls,
    gate: { call: 0, processor: 0 },
    blocked: calls.map(() => null),
    preset: calls.map(() => null),
    outcomes: calls.map(() => null),
  };
  return undefined;
}

function appendToolResults(context: RunContext, state: RunState, outcomes: RunStageOutcomes): void {
  const message: ToolMessage = { role: 'tool', content: [] };
  for (const outcome of outcomes) {
    const found = attachmentsOfOutput(outcome.modelOutput);
    if (found.length > 0) collectAttachments(context, state, found);
    message.content.push({
      type: 'tool-result',
      toolCallId: outcome.toolCallId,
      toolName: outcome.toolName,
      output: truncateForHistory(outcome.modelOutput, context.maxToolResultChars),
    });
  }
  appendMessage(state, message);
}

type RunStageOutcomes = Extract<RunState['stage'], { at: 'postTool' }>['outcomes'];

function collectAttachments(context: RunContext, state: RunState, found: readonly Attachment[]): void {
  const dropped = addAttachments(state, found, context.attachmentLimits);
  if (dropped > 0) {
    const { maxCount, maxBytes } = context.attachmentLimits;
    warn(
      context,
      state,
      `${dropped} attachment(s) dropped: the caps are ${maxCount} attachments and ${maxBytes} bytes per execution`,
    );
  }
}

async function compress(context: RunContext, state: RunState): Promise<void> {
  const outcome = await compressHistory(state, { caller: context.compressCaller, signal: context.signal });
  if (outcome.compressed) {
    const { result, model } = outcome.response;
    state.usage = addUsage(state.usage, usageFromV4(result.usage, model.modelId, context.catalog));
  } else if (outcome.reason === 'failed') {
    warn(context, state, outcome.warning);
  }
}

function noteThinking(context: RunContext, state: RunState, response: AssistantMessage): void {
  let thinking = '';
  for (const part of response.content) if (part.type === 'reasoning') thinking += part.text;
  if (thinking === '') return;
  state.thinking = thinking;
  context.emit?.({ type: 'thinking', text: thinking });
}

function textDelta(context: RunContext) {
  return (delta: string) => context.emit?.({ type: 'text-delta', delta });
}

function warn(context: RunContext, state: RunState, message: string): void {
  state.warnings.push(message);
  context.emit?.({ type: 'warning', message });
}

function appendMessage(state: RunState, message: Message): void {
  state.messages.push(message);
  state.historyChars += messageChars(message);
}

function replaceMessages(state: RunState, messages: Message[]): void {
  state.messages = [...messages];
  state.historyChars = messages.reduce((total, message) => total + messageChars(message), 0);
}

function textOfResponse(response: AssistantMessage): string {
  let text = '';
  for (const part of response.content) if (part.type === 'text') text += part.text;
  return text;
}

// The prompt sent to the model is converted incrementally: each message once, unless the history was replaced.
function createPromptCache() {
  let source: Message[] | undefined;
  let prompt: LanguageModelV4Message[] = [];
  return {
    of(messages: Message[]): LanguageModelV4Message[] {
      if (source !== messages) {
        source = messages;
        prompt = toV4Prompt(messages);
      } else if (prompt.length < messages.length) {
        for (const message of toV4Prompt(messages.slice(prompt.length))) prompt.push(message);
      }
      return prompt;
    },
  };
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
  const result: AgentResult = {
    id: state.runId,
    success: reason === 'stop' || reason === 'max-iterations' || reason === 'halted',
    output: ending.output ?? '',
    ...(state.thinking === undefined ? {} : { thinking: state.thinking }),
    attachments: state.attachments,
    usage: state.usage,
    steps: state.steps,
    finishReason: reason,
    synthesized: state.synthesized,
    iterations: state.iteration,
    startedAt: state.startedAt,
    finishedAt: isoTime(context.now()),
    ...(endingError ? { error: { code: endingError.code, message: endingError.message } } : {}),
    retryInfo: state.retryInfo,
    aborted: reason === 'aborted',
    messages: state.messages,
    warnings: state.warnings,
    ...(suspended ? { suspended } : {}),
  };
  if (endingError && reason !== 'aborted')
    context.emit?.({ type: 'error', error: { code: endingError.code, message: errorMessage(endingError) } });
  context.emit?.({ type: 'finish', result });
  return result;
}
