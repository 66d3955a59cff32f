import { builtinPromptSet } from '../prompts/builtin-prompts.ts';
import { AgencyError } from '../core/errors.ts';
import { createIdGenerator, type IdGenerator, type IdPrefix } from '../core/ids.ts';
import type { JsonValue, UserMessage } from '../core/messages.ts';
import { assemblePrompt } from '../memory/prompt-assembly.ts';
import { emptyUsage } from '../core/usage.ts';
import { createModelCaller, type ModelCaller } from '../model/call-model.ts';
import type { ModelChain } from '../model/capabilities.ts';
import type { Tool } from '../tools/define-tool.ts';
import type { z } from 'zod';
import { planExecutionTool } from './plan-execution.ts';
import { createToolRegistry, type ToolRegistry, toolsByName } from '../tools/tool-registry.ts';
import { createEventChannel } from './event-channel.ts';
import { isoTime } from './iso-time.ts';
import { callParams, chainOf, checkAgentOptions, type LLMAgentOptions, type ModelInput } from './llm-agent-options.ts';
import type { RunContext } from './run-context.ts';
import { agentResult } from './result.ts';
import { runLoop } from './run-loop.ts';
import { messageChars, type RunState } from './run-state.ts';
import { prepareStructuredOutput, type StructuredOutput, structuredOptionsOf } from './structured-output.ts';
import {
  checkpointOf,
  createSuspended,
  createSuspendLedger,
  parseSerializedRun,
  type SuspendLedger,
} from './suspend.ts';
import type { AgentEvent, AgentResult, AgentStream, AgentTask, ExecuteOptions, StreamingAgent } from './types.ts';

export type { AgentDeps, DynamicContext, LLMAgentOptions, ModelInput } from './llm-agent-options.ts';

/**
 * The standard agent: it calls the model, runs the tools it asks for (in parallel when there are several), feeds
 * the results back and repeats until the model answers without tool calls. With a `schema`, that answer is a
 * structured one: JSON the result carries parsed and typed as `result.object`.
 *
 * @example
 * const agent = new LLMAgent({ name: 'calc', model: 'openai:gpt-4o', tools: [add] });
 * const result = await agent.execute({ input: 'What is 2 + 3?' });
 *
 * const typed = new LLMAgent({ name: 'calc', model: 'openai:gpt-4o', tools: [add], schema: z.object({ sum: z.number() }) });
 * const { object } = await typed.execute({ input: 'What is 2 + 3?' }); // object?.sum: number
 */
export class LLMAgent<OBJECT = unknown> implements StreamingAgent {
  readonly name: string;
  readonly description: string;
  private readonly options: LLMAgentOptions<OBJECT>;
  private readonly structured: StructuredOutput | undefined;
  private readonly chain: ModelChain | undefined;
  private readonly tools: readonly Tool[];
  // `execute_plan`, when `planExecution` is on: one tool object, so every registry of this agent recognises it.
  private readonly planTool: readonly Tool[];
  private readonly now: () => number;
  // Built on first use: constructing an agent stays cheap for code that makes one per request.
  private idGenerator: IdGenerator | undefined;
  private callerOrUndefined: ModelCaller | undefined;
  private registryOrUndefined: ToolRegistry | undefined;
  private ledgerOrUndefined: SuspendLedger | undefined;

  /** @throws AgencyError `invalid_argument` naming the option to fix. */
  constructor(options: LLMAgentOptions<OBJECT>) {
    checkAgentOptions(options);
    this.structured =
      options.schema === undefined ? undefined : prepareStructuredOutput({ ...options, schema: options.schema });
    this.name = options.name;
    this.description = options.description ?? '';
    this.options = options;
    this.now = options.deps?.now ?? Date.now;
    this.idGenerator = options.deps?.newId;
    this.chain = options.model === undefined ? undefined : chainOf(options.model);
    this.planTool = options.planExecution ? [planExecutionTool()] : [];
    this.tools = [...(options.tools ?? []), ...this.planTool];
    toolsByName(this.tools);
  }

  /** Suspended runs held in memory, and their bytes. */
  get suspendedRuns(): { snapshots: number; bytes: number } {
    return { snapshots: this.ledgerOrUndefined?.snapshots ?? 0, bytes: this.ledgerOrUndefined?.bytes ?? 0 };
  }

  /** Runs the task to its end. Never rejects for a run-time failure: that is in the result. */
  execute<T>(task: AgentTask, options: ExecuteOptions & { schema: z.ZodType<T> }): Promise<AgentResult<T>>;
  execute(task: AgentTask, options?: ExecuteOptions): Promise<AgentResult<OBJECT>>;
  execute(task: AgentTask, options: ExecuteOptions = {}): Promise<AgentResult<OBJECT>> {
    return this.start(task, options, false, options.onEvent);
  }

  /** Runs the task, yielding its events; text deltas of a structured answer are its JSON as it is written. */
  stream<T>(task: AgentTask, options: Omit<ExecuteOptions, 'onEvent'> & { schema: z.ZodType<T> }): AgentStream<T>;
  stream(task: AgentTask, options?: Omit<ExecuteOptions, 'onEvent'>): AgentStream<OBJECT>;
  stream(task: AgentTask, options: Omit<ExecuteOptions, 'onEvent'> = {}): AgentStream<OBJECT> {
    const stop = new AbortController();
    const channel = createEventChannel<AgentEvent>(() =>
      stop.abort(new AgencyError('aborted', 'The stream consumer stopped reading')),
    );
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    const result = this.start(task, { ...options, signal }, true, (event) => channel.push(event)).finally(() =>
      channel.close(),
    );
    return Object.assign(channel.iterable, { result });
  }

  /**
   * Resumes a run serialized with `suspended.serialize()`, in this process or another one with the same agent.
   * @throws AgencyError `suspension_invalid` when the document is malformed or belongs to another agent.
   */
  async resumeSerialized(
    serialized: unknown,
    data?: JsonValue,
    options: ExecuteOptions = {},
  ): Promise<AgentResult<OBJECT>> {
    const state = parseSerializedRun(serialized, this.name);
    return this.continueRun(state, data, options);
  }

  private async start(
    task: AgentTask,
    options: ExecuteOptions,
    streaming: boolean,
    emit?: (event: AgentEvent) => void,
  ): Promise<AgentResult<OBJECT>> {
    checkTask(task);
    const signal = options.signal ?? new AbortController().signal;
    const state: RunState = {
      runId: options.runId ?? this.newId('run'),
      agent: this.name,
      task,
      startedAt: isoTime(this.now()),
      messages: [],
      historyChars: 0,
      iterationStarts: [],
      iteration: 0,
      usage: emptyUsage(),
      calls: [],
      retryInfo: { attempts: 0, retries: [] },
      warnings: [],
      attachments: [],
      attachmentBytes: 0,
      stage: { at: 'pre', processor: 0 },
    };
    let context: RunContext;
    try {
      context = await this.contextFor(task, options, signal, streaming, emit);
      if (options.maxIterations !== undefined) context.maxIterations = options.maxIterations;
      const instructions = this.options.dynamicInstructions
        ? await this.options.dynamicInstructions(task, { signal })
        : this.options.instructions;
      const memory = this.options.memory ? await this.options.memory(task, { signal }) : [];
      state.messages = assemblePrompt({
        persona: instructions ?? '',
        history: [...memory, ...(options.history ?? [])],
        ask: userInput(task),
        cacheBreakpoint: this.options.cacheBreakpoint,
      });
      state.historyChars = state.messages.reduce((total, message) => total + messageChars(message), 0);
    } catch (error) {
      return this.failBeforeStart(state, error, emit);
    }
    if (options.onCheckpoint) context.checkpoint = this.checkpointer(options.onCheckpoint);
    return runLoop(context, state) as Promise<AgentResult<OBJECT>>;
  }

  private checkpointer(onCheckpoint: NonNullable<ExecuteOptions['onCheckpoint']>) {
    return async (state: RunState) => {
      await onCheckpoint(checkpointOf(this.name, state, this.now()));
    };
  }

  private async continueRun(
    state: RunState,
    data: JsonValue | undefined,
    options: ExecuteOptions = {},
  ): Promise<AgentResult<OBJECT>> {
    const signal = options.signal ?? new AbortController().signal;
    const context = await this.contextFor(state.task, options, signal, false, options.onEvent);
    if (options.maxIterations !== undefined) context.maxIterations = options.maxIterations;
    if (data !== undefined) context.resumeData = data;
    if (options.onCheckpoint) context.checkpoint = this.checkpointer(options.onCheckpoint);
    delete state.suspendPayload;
    return runLoop(context, state) as Promise<AgentResult<OBJECT>>;
  }

  private async contextFor(
    task: AgentTask,
    execution: ExecuteOptions,
    signal: AbortSignal,
    streaming: boolean,
    emit: ((event: AgentEvent) => void) | undefined,
  ): Promise<RunContext> {
    const { options } = this;
    const caller = options.dynamicModel
      ? this.callerFor(await options.dynamicModel(task, { signal }))
      : (this.callerOrUndefined ??= this.callerFor(this.chain as ModelChain));
    const registry = options.dynamicTools
      ? createToolRegistry([...(await options.dynamicTools(task, { signal })), ...this.planTool])
      : (this.registryOrUndefined ??= createToolRegistry(this.tools));
    return {
      caller,
      compressCaller: options.compressModel ? this.callerFor(options.compressModel) : caller,
      prompts: options.prompts ?? builtinPromptSet(),
      promptRefs: execution.promptRefs ?? [],
      registry,
      processors: options.processors ?? [],
      params: callParams(options),
      maxIterations: options.maxIterations ?? 10,
      maxToolResultChars: options.maxToolResultChars ?? 100_000,
      compressThreshold: options.compressThreshold ?? 200_000,
      attachmentLimits: {
        maxCount: options.maxAttachments ?? 50,
        maxBytes: options.maxAttachmentBytes ?? 50 * 1024 * 1024,
      },
      catalog: options.catalog,
      structured: this.structuredFor(execution),
      streaming,
      emit,
      signal,
      now: this.now,
      suspend: (state, payload) =>
        createSuspended(
          {
            name: this.name,
            ledger: this.ledger(),
            ttlMs: options.suspendTtlMs ?? 30 * 60_000,
            now: this.now,
            newId: () => this.newId('sus'),
            // A resumed run keeps the schema its execution asked for.
            continueRun: (next, data, resumeOptions) =>
              this.continueRun(next, data, { ...structuredOptionsOf(execution), ...resumeOptions }),
          },
          state,
          payload,
        ),
    };
  }

  // An execution's own schema replaces the agent's.
  private structuredFor(execution: ExecuteOptions): StructuredOutput | undefined {
    if (execution.schema === undefined) return this.structured;
    return prepareStructuredOutput({ ...execution, schema: execution.schema });
  }

  private newId(prefix: IdPrefix): string {
    this.idGenerator ??= createIdGenerator({ now: this.now });
    return this.idGenerator(prefix);
  }

  // Most agents never suspend a run, so the ledger is only made for the first suspension.
  private ledger(): SuspendLedger {
    this.ledgerOrUndefined ??= createSuspendLedger(this.options.suspendBudget);
    return this.ledgerOrUndefined;
  }

  private callerFor(model: ModelInput): ModelCaller {
    const { modelPolicy = {}, catalog, deps } = this.options;
    return createModelCaller(chainOf(model), {
      ...modelPolicy,
      catalog,
      sleep: deps?.sleep,
      random: deps?.random,
      now: deps?.now,
    });
  }

  private failBeforeStart(state: RunState, error: unknown, emit?: (event: AgentEvent) => void): AgentResult<OBJECT> {
    const wrapped = AgencyError.from(error);
    const reason = wrapped.code === 'aborted' ? 'aborted' : 'error';
    const result = agentResult<OBJECT>({ ...state, calls: [] }, { reason, error: wrapped }, isoTime(this.now()));
    emit?.({ type: 'error', error: { code: wrapped.code, message: wrapped.message } });
    emit?.({ type: 'finish', result });
    return result;
  }
}

function checkTask(task: AgentTask): void {
  if (typeof task !== 'object' || task === null || typeof task.input !== 'string') {
    throw new AgencyError('invalid_argument', 'A task needs an "input" string, e.g. agent.execute({ input: "…" })');
  }
}

function userInput(task: AgentTask): UserMessage {
  return { role: 'user', content: [{ type: 'text', text: task.input }, ...(task.attachments ?? [])] };
}
