import type { AssistantMessage, JsonValue, Message, ToolCallPart } from '../core/messages.ts';
import type { Usage } from '../core/usage.ts';
import type { RetryEvent } from '../model/call-model.ts';
import type { ToolCallOutcome } from '../tools/run-tool-call.ts';
import type { PlanGroup } from './plan-execution.ts';
import type { PresetToolResult } from './processors.ts';
import type { AgentTask, Attachment, CallRecord } from './types.ts';

/** Where a run is in its loop. A suspended run records it, so resume continues exactly there. */
export type RunStage =
  /** `synthesis`: the iteration was started by a repair turn after the synthesis call, so it stays without tools. */
  | { at: 'pre'; processor: number; synthesis?: boolean }
  | { at: 'model'; synthesis: boolean }
  | { at: 'post'; processor: number; response: AssistantMessage; synthesis: boolean }
  | {
      at: 'tools';
      calls: ToolCallPart[];
      /** preTool progress: the next call and processor to run; `call === calls.length` when all were checked. */
      gate: { call: number; processor: number };
      /** A preTool processor's reason to block each call, or null. */
      blocked: Array<string | null>;
      /** A result a preTool processor supplied for each call instead of running it, or null. */
      preset: Array<PresetToolResult | null>;
      /** Each call's outcome once it has one; null while pending. */
      outcomes: Array<ToolCallOutcome | null>;
      /** The pending call that suspended the run, which receives the resume data. */
      resumeCall?: number | undefined;
      /** Calls to `execute_plan` expanded into `calls`, folded back into one result each at the end. */
      plans?: PlanGroup[];
    }
  | {
      at: 'postTool';
      calls: ToolCallPart[];
      outcomes: ToolCallOutcome[];
      call: number;
      processor: number;
      plans?: PlanGroup[];
    };

/** Everything a run needs to continue, as plain data. */
export type RunState = {
  runId: string;
  agent: string;
  task: AgentTask;
  startedAt: string;
  messages: Message[];
  /** Characters of text in `messages`, kept up to date for the compression threshold. */
  historyChars: number;
  /** The index in `messages` of each tool iteration's assistant message. */
  iterationStarts: number[];
  iteration: number;
  usage: Usage;
  calls: CallRecord[];
  retryInfo: { attempts: number; retries: RetryEvent[]; lastError?: string };
  warnings: string[];
  thinking?: string;
  attachments: Attachment[];
  attachmentBytes: number;
  /** Repair turns taken because the answer did not match the execution's schema. */
  repairs?: number;
  stage: RunStage;
  /** The payload of the suspension this state was saved for. */
  suspendPayload?: JsonValue;
};

/** The characters of text a message carries, as counted for compression. */
export function messageChars(message: Message): number {
  if (typeof message.content === 'string') return message.content.length;
  let total = 0;
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        total += part.text.length;
        break;
      case 'tool-call':
        total += typeof part.input === 'string' ? part.input.length : JSON.stringify(part.input ?? null).length;
        break;
      case 'tool-result':
        total += outputChars(part.output);
        break;
      default:
        break;
    }
  }
  return total;
}

function outputChars(output: { type: string; value?: unknown }): number {
  if (typeof output.value === 'string') return output.value.length;
  return output.value === undefined ? 0 : JSON.stringify(output.value).length;
}
