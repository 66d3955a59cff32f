import type { JsonValue } from '../../core/messages.ts';
import type { Agent, AgentEvent } from '../../agent/types.ts';
import type { Tool } from '../../tools/define-tool.ts';

/** What a step's functions see: the workflow's input and the outputs of the steps finished so far. */
export type StepContext = {
  /** The workflow's input (the task's `input`). */
  input: string;
  /** The output of every step finished so far, by id; a skipped step's output is `null`. */
  outputs: Readonly<Record<string, JsonValue>>;
  /** Which attempt this is, from 1. */
  attempt: number;
  /** Set when the step runs again after it suspended the run and the run was resumed: the person's answer. */
  resumeData?: JsonValue | undefined;
  /** Aborts when the run is cancelled. */
  signal: AbortSignal;
  /**
   * Pauses the run for human input; the run returns `suspended` with `payload`. Resumed with an answer, the step
   * runs again with it in `resumeData`.
   */
  suspend(payload: JsonValue): never;
};

/** How often a step is tried, and how long it waits between tries (see `backoffDelay`). */
export type StepRetry = {
  /** Tries in all, the first included. @default 1 */
  attempts: number;
  /** The wait before the first retry grows from this. @default 500 */
  initialMs?: number;
  /** @default 10000 */
  maxMs?: number;
};

type StepBase = {
  /** Letters, digits, `_`, `.` and `-`, unique in the workflow. */
  id: string;
  /** The steps that must finish (or be skipped) before this one starts. */
  dependsOn?: readonly string[];
  /** Runs the step only when this returns true; otherwise it is skipped, and so are the steps that need it. */
  when?: (context: StepContext) => boolean;
  retry?: StepRetry;
};

/** A step that runs an agent (an LLM agent, a network or another workflow). */
export type AgentStep = StepBase & {
  agent: Agent;
  /** The agent's input. @default the workflow's input, then the outputs of `dependsOn` as JSON */
  input?: (context: StepContext) => string;
};

/** A step that calls a tool. */
export type ToolStep = StepBase & {
  tool: Tool;
  /** The tool's arguments. @default {} */
  args?: (context: StepContext) => unknown;
};

/** A step that runs a function; its return value (JSON) is the step's output. */
export type FunctionStep = StepBase & {
  run: (context: StepContext) => JsonValue | Promise<JsonValue>;
};

/** One step of a workflow: an agent, a tool or a function. */
export type WorkflowStep = AgentStep | ToolStep | FunctionStep;

/** The kind of a step, as journaled (`step_kind`) and reported. */
export type StepKind = 'agent' | 'tool' | 'function';

/** The kind of `step`. */
export function stepKind(step: WorkflowStep): StepKind {
  if ('agent' in step) return 'agent';
  if ('tool' in step) return 'tool';
  return 'function';
}

/** Options for `createWorkflow`. */
export type WorkflowOptions = {
  /** Letters, digits, `_`, `.` and `-`. */
  name: string;
  /** @default 'A workflow of <n> steps' */
  description?: string;
  steps: readonly WorkflowStep[];
  /** How many steps may run at once. @default 4 */
  concurrency?: number;
  /** The workflow's answer, from the step outputs. @default the output of the last step declared that ran */
  output?: (outputs: Readonly<Record<string, JsonValue>>) => string;
  /** How long a suspended run's handle stays usable in this process. @default 86400000 (a day) */
  suspendTtlMs?: number;
  deps?: { now?: () => number; random?: () => number; sleep?: (ms: number, signal: AbortSignal) => Promise<void> };
};

/** Receives the run's events: the workflow's own and, wrapped, those of its agent steps. */
export type WorkflowEventSink = (event: AgentEvent) => void;
