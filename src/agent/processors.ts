import type { AssistantMessage, JsonValue, Message, ToolCallPart } from '../core/messages.ts';
import type { ToolCallOutcome } from '../tools/run-tool-call.ts';
import type { AgentTask } from './types.ts';

/**
 * What a processor returns: nothing to continue, a change, `{ halt }` to end the run with a canned answer, or
 * `{ suspend }` to pause it for human input. A suspended processor is called again on resume with `resumeData`.
 */
export type ProcessorVerdict<Change> = void | undefined | Change | { halt: string } | { suspend: JsonValue };

/** What every processor hook receives. */
export type ProcessorContext = {
  task: AgentTask;
  /** Completed tool iterations so far. */
  iteration: number;
  /** The data passed to `resume()`, when this hook suspended the run and is being called again. */
  resumeData?: JsonValue | undefined;
};

/**
 * Hooks around the loop. `pre` runs before each model call and may replace the history; `post` runs after each
 * model call and may replace its response; `preTool` runs before each tool call and may block it, change its
 * arguments or answer for it; `postTool` runs after each tool call and may replace its result.
 */
export type Processor = {
  name?: string;
  pre?(context: ProcessorContext & { messages: readonly Message[] }): Verdict<{ messages: Message[] }>;
  post?(context: ProcessorContext & { response: AssistantMessage }): Verdict<{ response: AssistantMessage }>;
  preTool?(
    context: ProcessorContext & { call: ToolCallPart },
  ): Verdict<{ call: ToolCallPart } | { block: string } | { result: PresetToolResult }>;
  postTool?(
    context: ProcessorContext & { call: ToolCallPart; outcome: ToolCallOutcome },
  ): Verdict<{ outcome: ToolCallOutcome }>;
};

type Verdict<Change> = ProcessorVerdict<Change> | Promise<ProcessorVerdict<Change>>;

/**
 * A result a `preTool` processor supplies instead of running the tool, e.g. one recovered from a journal after a
 * crash, or a cached answer.
 */
export type PresetToolResult = Pick<ToolCallOutcome, 'ok' | 'output' | 'error' | 'modelOutput'>;

/** The stages at which processors run. */
export type ProcessorStage = 'pre' | 'post' | 'preTool' | 'postTool';

/** Ends the run with `text` as its answer. */
export function halt(text: string): { halt: string } {
  return { halt: text };
}

/** Pauses the run for human input; `payload` tells the human what is needed. */
export function suspend(payload: JsonValue): { suspend: JsonValue } {
  return { suspend: payload };
}

/** True for a `{ halt }` verdict. */
export function isHalt(value: unknown): value is { halt: string } {
  return typeof value === 'object' && value !== null && typeof (value as { halt?: unknown }).halt === 'string';
}

/** True for a `{ suspend }` verdict. */
export function isSuspend(value: unknown): value is { suspend: JsonValue } {
  return typeof value === 'object' && value !== null && 'suspend' in value;
}
