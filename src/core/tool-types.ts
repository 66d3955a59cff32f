import type { ErrorCode } from './error-codes.ts';
import type { JsonValue, ToolResultOutput } from './messages.ts';

/** What a tool does to the world. It drives default policy: `read` tools are the least guarded. */
export type ToolEffect = 'read' | 'write' | 'network' | 'exec';

/** The effects a tool can declare. */
export const TOOL_EFFECTS: readonly ToolEffect[] = ['read', 'write', 'network', 'exec'];

/** How a tool call ended. Never an exception: failures are results the model can act on. */
export type ToolCallOutcome = {
  toolCallId: string;
  toolName: string;
  ok: boolean;
  /** The tool's own return value, when it succeeded. */
  output?: unknown;
  /** Why it failed, when it did. */
  error?: { code: ErrorCode; message: string };
  /** Set when the tool asked to pause the run for human input (see `requestSuspend`). */
  suspend?: { payload: JsonValue };
  /** What the model is sent back. */
  modelOutput: ToolResultOutput;
  durationMs: number;
};
