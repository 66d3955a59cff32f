import { withPromptRefs } from '../model/prompt-refs.ts';
import { promptRef } from '../prompts/prompt-store.ts';
import type { LanguageModelV4Message } from '@ai-sdk/provider';
import type { AgencyError } from '../core/errors.ts';
import {
  type AssistantMessage,
  type JsonValue,
  type Message,
  textOf,
  type ToolCallPart,
  type ToolMessage,
} from '../core/messages.ts';
import { toV4Prompt } from '../core/messages-v4-prompt.ts';
import { addUsage, usageFromV4 } from '../core/usage.ts';
import type { ModelRequest, RetryEvent } from '../model/call-model.ts';
import type { ToolCallOutcome } from '../tools/run-tool-call.ts';
import { addAttachments, attachmentsOfOutput } from './attachments.ts';
import { compressHistory } from './compression.ts';
import { truncateForHistory } from './history.ts';
import type { ModelTurn, ModelTurnOptions } from './model-turn.ts';
import { expandPlans, isPlanTool } from './plan-execution.ts';
import { isHalt, isSuspend } from './processors.ts';
import { type RunContext, takeResumeData } from './run-context.ts';
import { messageChars, type RunStage, type RunState } from './run-state.ts';
import { checkStructuredAnswer } from './structured-answer.ts';
import type { AgentFinishReason, Attachment } from './types.ts';

// The synchronous work of each stage of the run loop. The awaits stay in the loop's own switch: a function per stage
// would add an async call and an await to every stage of every step.

/** How a run ended, before it is turned into a result. */
export type Ending = {
  reason: AgentFinishReason;
  output?: string;
  /** The answer parsed with the execution's schema. */
  object?: unknown;
  error?: AgencyError;
  payload?: JsonValue;
};

type StopVerdict = { halt: string } | { suspend: JsonValue };
type PostStage = Extract<RunStage, { at: 'post' }>;
type PostToolStage = Extract<RunStage, { at: 'postTool' }>;

/** True when a processor's verdict ends the run here: a halt or a suspension. */
export function isStop(verdict: unknown): verdict is StopVerdict {
  return isHalt(verdict) || isSuspend(verdict);
}

export function endingOfStop(verdict: StopVerdict): Ending {
  return isHalt(verdict)
    ? { reason: 'halted', output: verdict.halt }
    : { reason: 'suspended', payload: verdict.suspend };
}

export function preHookInput(context: RunContext, state: RunState) {
  const resumeData = takeResumeData(context);
  return {
    task: state.task,
    iteration: state.iteration,
    messages: state.messages,
    resumeData,
  };
}

export function postHookInput(context: RunContext, state: RunState, stage: PostStage) {
  const resumeData = takeResumeData(context);
  return {
    task: state.task,
    iteration: state.iteration,
    response: stage.response,
    resumeData,
  };
}

export function postToolHookInput(context: RunContext, state: RunState, stage: PostToolStage) {
  const resumeData = takeResumeData(context);
  return {
    task: state.task,
    iteration: state.iteration,
    call: stage.calls[stage.call] as ToolCallPart,
    outcome: stage.outcomes[stage.call] as ToolCallOutcome,
    resumeData,
  };
}

export function needsCompression(context: RunContext, state: RunState): boolean {
  return context.compressThreshold >= 0 && state.historyChars > context.compressThreshold;
}

export async function compress(context: RunContext, state: RunState): Promise<void> {
  const outcome = await compressHistory(state, {
    caller: context.compressCaller,
    signal: context.signal,
    prompts: context.prompts,
  });
  if (outcome.compressed) {
    const { result, model } = outcome.response;
    state.usage = addUsage(state.usage, usageFromV4(result.usage, model, context.catalog));
  } else if (outcome.reason === 'failed') {
    warn(context, state, outcome.warning);
  }
}

/** The model call for this step: the history so far, the run's parameters and, unless synthesising, its tools. */
export function modelTurnOptions(
  context: RunContext,
  state: RunState,
  synthesis: boolean,
  prompt: PromptCache,
  onRetry: (retry: RetryEvent) => void,
): ModelTurnOptions {
  // A fresh array per call: the model (or a recorder) may keep the request it was given.
  const request: ModelRequest = {
    prompt: prompt.of(state.messages).slice(),
    ...context.params,
    ...context.structured?.request,
  };
  if (context.registry.names().length > 0) {
    request.tools = context.registry.definitions() as NonNullable<ModelRequest['tools']>;
    if (synthesis) request.toolChoice = { type: 'none' };
  }
  const providerOptions = withPromptRefs(request.providerOptions, callPromptRefs(context, state, synthesis));
  if (providerOptions) request.providerOptions = providerOptions;
  return {
    caller: context.caller,
    request,
    signal: context.signal,
    catalog: context.catalog,
    ...(context.streaming && context.emit ? { onTextDelta: textDelta(context) } : {}),
    onRetry,
  };
}

/**
 * The prompt templates a call is built from: the caller's, plus the agent's repair and synthesis prompts once they
 * are in the history.
 */
export function callPromptRefs(context: RunContext, state: RunState, synthesis: boolean): string[] {
  const refs = [...context.promptRefs];
  const own = (id: string) => context.prompts.templates.get(id);
  const repair = own('agent.repair');
  if (state.repairs && repair) refs.push(promptRef(repair));
  const synthesisPrompt = own('agent.synthesis');
  if (synthesis && synthesisPrompt) refs.push(promptRef(synthesisPrompt));
  return refs;
}

// Made once per execution: a closure made per step would also allocate a scope for `context` and `state`.
export function retryRecorder(context: RunContext, state: RunState): (retry: RetryEvent) => void {
  return (retry) => {
    state.retryInfo.retries.push(retry);
    state.retryInfo.lastError = retry.message;
    context.emit?.({ type: 'retry', retry });
  };
}

/** Counts the model call's attempts and usage, reports the step, and hands the response to the `post` stage. */
export function recordModelTurn(context: RunContext, state: RunState, turn: ModelTurn, synthesis: boolean): void {
  const prompts = context.emit ? callPromptRefs(context, state, synthesis) : [];
  state.retryInfo.attempts += turn.attempts;
  state.usage = addUsage(state.usage, turn.usage);
  const calls = turn.response.content.filter((part): part is ToolCallPart => part.type === 'tool-call').length;
  context.emit?.({
    type: 'iteration-finish',
    iteration: state.iteration,
    usage: turn.usage,
    toolCalls: calls,
    finishReason: turn.finishReason,
    ...(prompts.length > 0 ? { prompts } : {}),
  });
  noteThinking(context, state, turn.response);
  state.stage = { at: 'post', processor: 0, response: turn.response, synthesis };
}

/**
 * Appends the model's answer; returns the ending when there are no tool calls to run and the answer is final (with
 * a schema: valid, or out of repair turns).
 */
export function acceptResponse(
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
    const ending = { reason: synthesis ? 'max-iterations' : 'stop', output: textOf(kept) } as const;
    return checkStructuredAnswer(context, state, ending, synthesis);
  }
  state.iterationStarts.push(state.messages.length);
  appendMessage(state, response);
  const { calls: expanded, plans } = expandPlans(calls, (name) => isPlanTool(context.registry.get(name)));
  state.stage = {
    at: 'tools',
    calls: expanded,
    gate: { call: 0, processor: 0 },
    blocked: expanded.map(() => null),
    preset: expanded.map(() => null),
    outcomes: expanded.map(() => null),
    ...(plans.length > 0 ? { plans } : {}),
  };
  return undefined;
}

export function appendToolResults(context: RunContext, state: RunState, outcomes: ToolCallOutcome[]): void {
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

export function appendMessage(state: RunState, message: Message): void {
  state.messages.push(message);
  state.historyChars += messageChars(message);
}

export function replaceMessages(state: RunState, messages: Message[]): void {
  state.messages = [...messages];
  state.historyChars = messages.reduce((total, message) => total + messageChars(message), 0);
}

type PromptCache = ReturnType<typeof createPromptCache>;

// The prompt sent to the model is converted incrementally: each message once, unless the history was replaced.
export function createPromptCache() {
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
