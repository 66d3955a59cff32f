import type { PromptSet } from '../prompts/prompt-set.ts';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { AgencyError } from '../core/errors.ts';
import type { IdGenerator } from '../core/ids.ts';
import type { Message, ProviderOptions } from '../core/messages.ts';
import type { ModelCatalog } from '../core/model-catalog.ts';
import type { CallPolicy } from '../model/call-model.ts';
import type { ModelChain } from '../model/capabilities.ts';
import { resolveModel } from '../model/resolve-model.ts';
import type { Tool } from '../tools/define-tool.ts';
import type { Processor } from './processors.ts';
import type { RunContext } from './run-context.ts';
import type { StructuredOutputOptions } from './structured-output.ts';
import type { SuspendBudget } from './suspend.ts';
import type { AgentTask } from './types.ts';

/** A model: a spec string, a `LanguageModelV4`, or a fallback chain. */
export type ModelInput = string | LanguageModelV4 | ModelChain;

/** What an agent takes from its environment; see `LLMAgentOptions.deps`. */
export type AgentDeps = {
  now?: () => number;
  newId?: IdGenerator;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter for retry backoff, in [0, 1). */
  random?: () => number;
};

/** What dynamic configuration functions receive. */
export type DynamicContext = { signal: AbortSignal };

/**
 * Options for `LLMAgent` (`./llm-agent.ts`). `schema` (with `schemaName`, `schemaDescription` and `maxRepairs`)
 * makes every execution's final answer a structured one, `result.object`, typed `OBJECT`.
 */
export type LLMAgentOptions<OBJECT = unknown> = Partial<StructuredOutputOptions<OBJECT>> & {
  name: string;
  /** @default '' */
  description?: string;
  model: ModelInput;
  /** The system prompt: who the agent is and how it works. */
  instructions?: string;
  /**
   * The agent's own prompts (`agent.synthesis`, `agent.repair`, `agent.compress`), e.g. resolved from a
   * `PromptStore` with `resolvePromptSet`. @default the built-in versions
   */
  prompts?: PromptSet;
  tools?: readonly Tool[];
  /**
   * Offers the model `execute_plan`: a batch of calls of its other tools in one call, each run as a tool call of its
   * own (checked by every processor, policy and approvals included), their results returned together
   * (`./plan-execution.ts`). @default false
   */
  planExecution?: boolean;
  /** Model calls that lead to tool calls before a final answer is forced. @default 10 */
  maxIterations?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  /** Maximum output tokens per model call. */
  maxOutputTokens?: number;
  /** Chooses the instructions per execution; they replace `instructions`. */
  dynamicInstructions?(task: AgentTask, context: DynamicContext): string | Promise<string>;
  /** Chooses the model per execution. */
  dynamicModel?(task: AgentTask, context: DynamicContext): ModelInput | Promise<ModelInput>;
  /** Chooses the tools per execution; they replace `tools`. */
  dynamicTools?(task: AgentTask, context: DynamicContext): readonly Tool[] | Promise<readonly Tool[]>;
  /** Messages placed after the system prompt: remembered facts, earlier turns. */
  memory?(task: AgentTask, context: DynamicContext): Message[] | Promise<Message[]>;
  /**
   * Provider options set on the system prompt to mark it as a prompt-cache breakpoint (Anthropic caches the tool
   * definitions and the system prompt up to it; OpenAI caches long prefixes without one); `false` sets none.
   * @default { anthropic: { cacheControl: { type: 'ephemeral' } } }
   */
  cacheBreakpoint?: ProviderOptions | false;
  processors?: readonly Processor[];
  /** Characters of history above which old tool results are summarised; negative disables. @default 200000 */
  compressThreshold?: number;
  /** The model that writes those summaries. @default the agent's model */
  compressModel?: ModelInput;
  /** Tool results longer than this are truncated in the history. @default 100000 */
  maxToolResultChars?: number;
  /** @default 50 */
  maxAttachments?: number;
  /** @default 52428800 (50 MB) */
  maxAttachmentBytes?: number;
  /** How long a suspended run is kept. @default 1800000 (30 min) */
  suspendTtlMs?: number;
  suspendBudget?: SuspendBudget;
  /** Timeouts and retries for model calls. */
  modelPolicy?: CallPolicy;
  catalog?: ModelCatalog | undefined;
  /**
   * The clock, ids, waits and jitter of everything the agent does: run and suspension ids, timestamps, and the model
   * caller's retry backoff. Fix them for deterministic tests.
   * @default { now: Date.now, newId: a generator on `now`, sleep: a timer, random: Math.random }
   */
  deps?: AgentDeps;
};

/** Throws `invalid_argument` naming the field and the fix when the options cannot make an agent. */
export function checkAgentOptions(options: LLMAgentOptions): void {
  if (typeof options?.name !== 'string' || options.name.trim() === '') {
    throw new AgencyError('invalid_argument', 'LLMAgent needs a "name"');
  }
  if (options.model === undefined && !options.dynamicModel) {
    throw new AgencyError('invalid_argument', `LLMAgent "${options.name}" needs a "model", e.g. "openai:gpt-4o"`);
  }
  const maxIterations = options.maxIterations ?? 10;
  if (!Number.isInteger(maxIterations) || maxIterations < 1) {
    throw new AgencyError('invalid_argument', `LLMAgent "${options.name}": "maxIterations" must be a positive integer`);
  }
}

/** The fallback chain a model input stands for; a spec string is resolved. */
export function chainOf(model: ModelInput): ModelChain {
  return typeof model === 'string' ? resolveModel(model) : model;
}

/** The generation settings of a call: only those that were given, so the provider's defaults apply to the others. */
export function callParams({ temperature, topP, topK, maxOutputTokens }: LLMAgentOptions): RunContext['params'] {
  const params: RunContext['params'] = {};
  if (temperature !== undefined) params.temperature = temperature;
  if (topP !== undefined) params.topP = topP;
  if (topK !== undefined) params.topK = topK;
  if (maxOutputTokens !== undefined) params.maxOutputTokens = maxOutputTokens;
  return params;
}
