import type { PromptSet } from '../prompts/prompt-set.ts';
import type { JsonValue } from '../core/messages.ts';
import type { ModelCatalog } from '../core/model-catalog.ts';
import type { ModelCaller } from '../model/call-model.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import type { AttachmentLimits } from './attachments.ts';
import type { Processor } from './processors.ts';
import type { RunState } from './run-state.ts';
import type { StructuredOutput } from './structured-output.ts';
import type { Suspended } from './suspend.ts';
import type { AgentEvent } from './types.ts';

/** Everything one execution of the loop needs besides its state. Built fresh for each execution and resume. */
export type RunContext = {
  caller: ModelCaller;
  compressCaller: ModelCaller;
  /** The agent's own prompts. */
  prompts: PromptSet;
  /** The templates the caller built this execution's messages from (`id@version`). */
  promptRefs: readonly string[];
  registry: ToolRegistry;
  processors: readonly Processor[];
  params: { temperature?: number; topP?: number; topK?: number; maxOutputTokens?: number };
  maxIterations: number;
  maxToolResultChars: number;
  /** Characters of history above which old tool results are summarised; negative disables. */
  compressThreshold: number;
  attachmentLimits: AttachmentLimits;
  /** The structured answer this execution asks for, if any. */
  structured?: StructuredOutput | undefined;
  catalog?: ModelCatalog | undefined;
  /** Stream model calls and emit text deltas. */
  streaming: boolean;
  /** Receives events; absent when nobody listens, so none are built. */
  emit?: ((event: AgentEvent) => void) | undefined;
  signal: AbortSignal;
  now: () => number;
  /** Snapshots the state into a suspended handle (may throw `suspend_budget_exceeded`). */
  suspend: (state: RunState, payload: JsonValue) => Suspended;
  /** Persists the state at iteration boundaries, when the caller asked for checkpoints. */
  checkpoint?: (state: RunState) => Promise<void>;
  /** Data from `resume()`, handed to the first hook that runs at the suspended point. */
  resumeData?: JsonValue | undefined;
};

/** Takes the resume data once: only the hook that suspended the run receives it. */
export function takeResumeData(context: RunContext): JsonValue | undefined {
  const data = context.resumeData;
  context.resumeData = undefined;
  return data;
}
