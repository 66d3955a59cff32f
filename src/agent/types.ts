import type { ErrorCode } from '../core/error-codes.ts';
import type { FilePart, ImagePart, JsonValue, Message } from '../core/messages.ts';
import type { Usage } from '../core/usage.ts';
import type { RetryEvent } from '../model/call-model.ts';
import type { StructuredOutputOptions } from './structured-output.ts';
import type { SerializedRun, Suspended } from './suspend.ts';

/** An image or file passed in with a task or produced during a run. */
export type Attachment = ImagePart | FilePart;

/** The input to any agent. */
export type AgentTask = {
  /** What to do, in natural language. */
  input: string;
  /** Images and files that go with the input. */
  attachments?: Attachment[];
  /** Metadata carried through the agent hierarchy; see `taskThreadId`, `taskUserId`, `taskChatId`. */
  context?: Record<string, JsonValue>;
};

/** A record of one tool call or delegation, in the order they ran. */
export type CallRecord = {
  /** `step` for a workflow's steps. */
  type: 'tool' | 'agent' | 'step';
  name: string;
  toolCallId?: string;
  input: unknown;
  /** The full output, never truncated. */
  output: unknown;
  error?: { code: ErrorCode; message: string };
  usage: Usage;
  startedAt: string;
  durationMs: number;
};

/** Why a run ended. */
export type AgentFinishReason = 'stop' | 'max-iterations' | 'halted' | 'suspended' | 'error' | 'aborted';

/** What any agent returns; `OBJECT` is the type of its structured answer, when it asked for one. */
export type AgentResult<OBJECT = unknown> = {
  /** The run's id (`run_…`). */
  id: string;
  /** The final answer, as text. With a `schema`, the JSON the model wrote. */
  output: string;
  /**
   * The final answer parsed and validated with the execution's `schema`. Absent without a schema, and when the run
   * did not end with a valid answer (then `error.code` is `structured_output_invalid`, or the run failed otherwise).
   */
  object?: OBJECT;
  /** The model's last reasoning before the final answer. */
  thinking?: string;
  /** Files from the model and from tool results, within the attachment caps. */
  attachments: Attachment[];
  /** Tokens and cost of every model call in the run. */
  usage: Usage;
  /** Every tool call and delegation, with timing. */
  calls: CallRecord[];
  /**
   * Why the run ended: `stop` (the model answered), `max-iterations` (the cap was reached and a final answer was asked
   * for without tools), `halted` (a processor answered), `suspended`, `error` or `aborted`.
   */
  finishReason: AgentFinishReason;
  /** How many model calls led to tool calls. */
  iterations: number;
  startedAt: string;
  finishedAt: string;
  error?: { code: ErrorCode; message: string };
  /** Model call attempts across the run, and every retry or fallback. */
  retryInfo: { attempts: number; retries: RetryEvent[]; lastError?: string };
  /** The whole conversation, tool results truncated as the model saw them. */
  messages: Message[];
  warnings: string[];
  /** Present when `finishReason` is `suspended`: the handle to resume the run. */
  suspended?: Suspended;
};

/**
 * Options for one execution. `schema` (with `schemaName`, `schemaDescription` and `maxRepairs`) asks for a
 * structured answer for this execution only, in place of the agent's own.
 */
export type ExecuteOptions = Partial<StructuredOutputOptions> & {
  /** Cancels the run; in-flight tool calls resolve to error results at once. */
  signal?: AbortSignal;
  /** The run's id (`run_…`), e.g. one a caller already handed out. @default a new id from the agent's `deps.newId` */
  runId?: string;
  /** Earlier conversation, placed after the system prompt and memory, before the input. */
  history?: Message[];
  /** Overrides the agent's `maxIterations` for this execution, e.g. to time-box a phase. */
  maxIterations?: number | undefined;
  /**
   * The prompt templates (`id@version`) the caller built this execution's messages from. Each model call carries
   * them, with the agent's own prompts it adds, in `providerOptions.agency.prompts` (providers ignore it; cassettes
   * record it) and in its `iteration-finish` event.
   */
  promptRefs?: readonly string[] | undefined;
  /** Receives every event of the run, as `stream()` would yield them (text deltas only when streaming). */
  onEvent?: (event: AgentEvent) => void;
  /**
   * Receives a checkpoint before each iteration and before each batch of tool calls, and is awaited: persist it
   * (e.g. with an fsync) and a crashed run can continue from it with `agent.resumeSerialized(checkpoint)`.
   */
  onCheckpoint?: (checkpoint: SerializedRun) => void | Promise<void>;
};

/** Anything that takes a task and returns a result. Agents compose: networks and workflows are agents too. */
export type Agent = {
  readonly name: string;
  readonly description: string;
  execute(task: AgentTask, options?: ExecuteOptions): Promise<AgentResult>;
};

/** Events of a run, in order. */
export type AgentEvent =
  | { type: 'text-delta'; delta: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool-call-start'; toolCallId: string; toolName: string; input: unknown }
  | {
      type: 'tool-call-result';
      toolCallId: string;
      toolName: string;
      /** The full output, never truncated. */
      output: unknown;
      error?: { code: ErrorCode; message: string };
      durationMs: number;
    }
  | {
      type: 'iteration-finish';
      iteration: number;
      usage: Usage;
      toolCalls: number;
      finishReason: string;
      /** The prompt templates the call was built from (`id@version`); absent when none is known. */
      prompts?: string[];
    }
  | { type: 'retry'; retry: RetryEvent }
  | { type: 'warning'; message: string }
  | { type: 'suspended'; id: string; payload: JsonValue }
  | { type: 'finish'; result: AgentResult }
  | { type: 'error'; error: { code: ErrorCode; message: string } }
  | WorkflowEvent
  | AgentStartEvent
  | AgentFinishEvent
  | NestedAgentEvent;

/** Events of a workflow run: its steps starting and finishing, a suspension, and its agent steps' own events. */
export type WorkflowEvent =
  | { type: 'workflow-step-start'; workflow: string; step: string; kind: string; attempt: number; startedAt: string }
  | {
      type: 'workflow-step-finish';
      workflow: string;
      step: string;
      kind: string;
      attempt: number;
      /** `done`, `skipped` (its condition was false, or a step it needs was skipped), or `failed` (this attempt). */
      status: 'done' | 'skipped' | 'failed';
      startedAt: string;
      durationMs: number;
      usage: Usage;
      error?: { code: ErrorCode; message: string };
    }
  | { type: 'workflow-suspended'; workflow: string; step: string; payload: JsonValue }
  /** An event of the agent an agent step runs, as that agent emitted it. */
  | { type: 'workflow-step-event'; workflow: string; step: string; event: AgentEvent };

/** Where a delegation sits: the agents from the outermost network down to the sub-agent, and how deep that is. */
export type DelegationPlace = {
  /** The sub-agent's name. */
  agent: string;
  /** The sub-agent's run id (`run_…`). */
  runId: string;
  /** The run id of the network that delegated. */
  parentRunId: string;
  /** Agent names from the outermost network to the sub-agent, e.g. `['team', 'researcher']`. */
  path: string[];
  /** 1 for a network's own sub-agents, 2 for theirs, and so on. */
  depth: number;
};

/** A network handed a task to a sub-agent. */
export type AgentStartEvent = DelegationPlace & {
  type: 'agent-start';
  /** The router's tool call that delegated. */
  toolCallId: string;
  input: string;
  startedAt: string;
};

/** A sub-agent's run ended (it may have suspended; see `finishReason`). */
export type AgentFinishEvent = DelegationPlace & {
  type: 'agent-finish';
  toolCallId: string;
  finishReason: AgentFinishReason;
  /** Tokens and cost of the sub-agent's run, its own delegations included. */
  usage: Usage;
  durationMs: number;
  error?: { code: ErrorCode; message: string };
};

/** An event of a sub-agent's run, forwarded to the network's listeners with where it came from. */
export type NestedAgentEvent = Omit<DelegationPlace, 'parentRunId'> & {
  type: 'agent-event';
  /** Never a delegation event nor `finish`: a nested network's own delegations are forwarded unwrapped. */
  event: AgentEvent;
};

/** The events of a streamed run, and its result. */
export type AgentStream<OBJECT = unknown> = AsyncIterable<AgentEvent> & {
  /** Resolves with the result when the run ends, however it ends. */
  readonly result: Promise<AgentResult<OBJECT>>;
};

/** An agent that can also stream its run as events. */
export type StreamingAgent = Agent & {
  /**
   * Runs the task and yields its events. Stopping the iteration (or aborting the signal) ends the run cleanly; the
   * run never waits on a consumer that stopped reading.
   */
  stream(task: AgentTask, options?: Omit<ExecuteOptions, 'onEvent'>): AgentStream;
};

/** The context key for a conversation thread id. */
export const CONTEXT_THREAD_ID = 'threadId';
/** The context key for a user id. */
export const CONTEXT_USER_ID = 'userId';
/** The context key for a chat id. */
export const CONTEXT_CHAT_ID = 'chatId';

/** The task's thread id, when it has a string one. */
export function taskThreadId(task: AgentTask): string | undefined {
  return stringContext(task, CONTEXT_THREAD_ID);
}

/** The task's user id, when it has a string one. */
export function taskUserId(task: AgentTask): string | undefined {
  return stringContext(task, CONTEXT_USER_ID);
}

/** The task's chat id, when it has a string one. */
export function taskChatId(task: AgentTask): string | undefined {
  return stringContext(task, CONTEXT_CHAT_ID);
}

function stringContext(task: AgentTask, key: string): string | undefined {
  const value = task.context?.[key];
  return typeof value === 'string' ? value : undefined;
}
