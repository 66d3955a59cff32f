import { AgencyError } from '../../core/errors.ts';
import { createIdGenerator, type IdGenerator } from '../../core/ids.ts';
import { addUsage } from '../../core/usage.ts';
import { createEventChannel } from '../../agent/event-channel.ts';
import { LLMAgent, type LLMAgentOptions } from '../../agent/llm-agent.ts';
import { halt, type Processor } from '../../agent/processors.ts';
import type { Suspended } from '../../agent/suspend.ts';
import type {
  Agent,
  AgentEvent,
  AgentResult,
  AgentStream,
  AgentTask,
  CallRecord,
  ExecuteOptions,
  StreamingAgent,
} from '../../agent/types.ts';
import type { Tool } from '../../tools/define-tool.ts';
import { checkBudget, createBudgetMeter, type NetworkBudget } from './budget.ts';
import { checkMembers } from './check-members.ts';
import { delegationTool } from './delegation-tool.ts';
import { activeScope, currentFrame, inNetworkScope, type NetworkScope } from './scope.ts';

/** The router's instructions when a network is given none. */
export const DEFAULT_ROUTER_INSTRUCTIONS =
  'You coordinate a team of agents, each available to you as a tool. Hand each part of the task to the agent whose ' +
  'description fits it, with a task that is complete in itself and any context it needs. Agents can run in ' +
  'parallel when their parts do not depend on each other. When an agent fails, decide whether to retry it with a ' +
  'clearer task, ask another agent, or answer without it. Answer from the results.';

/** Options for {@link createNetwork}: those of the router (an `LLMAgent`), its sub-agents and its budget. */
export type NetworkOptions = Omit<LLMAgentOptions, 'tools' | 'dynamicTools' | 'instructions'> & {
  /** The sub-agents. Each is shown to the router as a tool with its name and description. */
  agents: readonly Agent[];
  /** Plain tools the router may call itself. */
  tools?: readonly Tool[];
  /** The router's system prompt. @default DEFAULT_ROUTER_INSTRUCTIONS */
  instructions?: string;
  /** What the router and all its sub-agents, at every depth, may spend together. @default unbounded */
  budget?: NetworkBudget;
  /** How long one delegation may take before it is cancelled. @default 600000 (10 min) */
  delegationTimeoutMs?: number;
};

/**
 * An LLM router over sub-agents: the router is the standard agent loop, and each sub-agent is one of its tools.
 * A network is an agent itself, so networks nest. Delegations show up as `agent-start` / `agent-finish` events (the
 * sub-agents' own events follow as `agent-event`), as `type: 'agent'` calls in the result, and in its usage.
 *
 * @example
 * const team = createNetwork({ name: 'team', description: 'Researches and writes', model: 'openai:gpt-4o',
 *   agents: [researcher, writer], budget: { maxTokens: 200_000 } });
 * const result = await team.execute({ input: 'A one-page brief on solid-state batteries' });
 */
export function createNetwork(options: NetworkOptions): Network {
  return new Network(options);
}

/** See {@link createNetwork}. */
export class Network implements StreamingAgent {
  readonly name: string;
  readonly description: string;
  private readonly router: LLMAgent;
  private readonly budget: NetworkBudget;
  private readonly now: () => number;
  private readonly newId: IdGenerator;

  /** @throws AgencyError `invalid_argument` naming the option or member to fix. */
  constructor(options: NetworkOptions) {
    const {
      agents,
      tools = [],
      instructions = DEFAULT_ROUTER_INSTRUCTIONS,
      budget = {},
      delegationTimeoutMs = 600_000,
      processors = [],
      ...routerOptions
    } = options;
    const name = String(options.name);
    checkMembers(name, agents, tools);
    checkBudget(name, budget);
    if (!Number.isFinite(delegationTimeoutMs) || delegationTimeoutMs <= 0)
      throw new AgencyError('invalid_argument', `Network "${name}": "delegationTimeoutMs" must be a positive number`);
    this.router = new LLMAgent({
      ...routerOptions,
      instructions,
      tools: [...agents.map((agent) => delegationTool(agent, delegationTimeoutMs)), ...tools],
      processors: [budgetGate, ...processors],
    });
    this.name = this.router.name;
    this.description = this.router.description;
    this.budget = budget;
    this.now = options.deps?.now ?? Date.now;
    this.newId = options.deps?.newId ?? createIdGenerator({ now: this.now });
  }

  /** Runs the task to its end. Never rejects for a run-time failure: that is in the result. */
  execute(task: AgentTask, options: ExecuteOptions = {}): Promise<AgentResult> {
    const frame = currentFrame();
    const runId = options.runId ?? this.newId('run');
    const scope: NetworkScope = {
      runId,
      path: [...(frame?.path.slice(0, -1) ?? []), this.name],
      meter: createBudgetMeter(this.budget, frame?.meter.remaining() ?? {}, (error) =>
        scope.stopDelegations.abort(error),
      ),
      stopDelegations: new AbortController(),
      delegations: new Map(),
      pending: new Map(),
      emit: () => {},
      now: this.now,
      newId: this.newId,
    };
    return this.runIn(scope, options, (onEvent) => this.router.execute(task, { ...options, runId, onEvent }));
  }

  /**
   * Runs the task, yielding its events: the router's, and its sub-agents' as `agent-start`, `agent-event` and
   * `agent-finish`. The router's answer arrives whole in `finish`, without text deltas.
   */
  stream(task: AgentTask, options: Omit<ExecuteOptions, 'onEvent'> = {}): AgentStream {
    const stop = new AbortController();
    const channel = createEventChannel<AgentEvent>(() =>
      stop.abort(new AgencyError('aborted', 'The stream consumer stopped reading')),
    );
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    const result = this.execute(task, { ...options, signal, onEvent: (event) => channel.push(event) }).finally(() =>
      channel.close(),
    );
    return Object.assign(channel.iterable, { result });
  }

  // Runs the router (a new run or a resumed one) as part of `scope`, then reports the delegations in its result.
  private async runIn(
    scope: NetworkScope,
    options: Pick<ExecuteOptions, 'onEvent' | 'signal'>,
    run: (onEvent: (event: AgentEvent) => void) => Promise<AgentResult>,
  ): Promise<AgentResult> {
    const listener = options.onEvent;
    scope.emit = (event) => listener?.(event);
    const routerResult = await inNetworkScope(scope, () =>
      run((event) => {
        if (event.type === 'iteration-finish') scope.meter.charge(event.usage);
        if (event.type !== 'finish') listener?.(event);
      }),
    );
    const result = this.report(scope, routerResult, options.signal);
    listener?.({ type: 'finish', result });
    return result;
  }

  private report(scope: NetworkScope, result: AgentResult, signal: AbortSignal | undefined): AgentResult {
    const calls = result.calls.map((call) => asDelegation(scope, call));
    let usage = result.usage;
    for (const delegation of scope.delegations.values()) usage = addUsage(usage, delegation.usage);
    const report: AgentResult = { ...result, calls, usage };
    const exhausted = scope.meter.exhausted();
    if (exhausted && result.finishReason !== 'stop' && !signal?.aborted) {
      report.finishReason = 'error';
      report.error = { code: exhausted.code, message: exhausted.message };
    }
    if (result.suspended) report.suspended = this.suspendedIn(scope, result.suspended);
    return report;
  }

  // The router's suspended handle, resumed as part of the same network run (its budget, delegations and pending
  // sub-agents). A suspended sub-agent is held in memory, so a network's run resumes in this process only.
  private suspendedIn(scope: NetworkScope, inner: Suspended): Suspended {
    return {
      id: inner.id,
      payload: inner.payload,
      expiresAt: inner.expiresAt,
      release: () => {
        for (const pending of scope.pending.values()) pending.handle.release();
        inner.release();
      },
      serialize: () => {
        throw new AgencyError(
          'suspension_invalid',
          `Network "${this.name}" holds its suspended sub-agents in memory; resume it with suspended.resume() in this process`,
        );
      },
      resume: (data, options = {}) =>
        this.runIn(scope, options, (onEvent) => inner.resume(data, { ...options, onEvent })),
    };
  }
}

// Stops the router before a model call once the network's budget is spent.
const budgetGate: Processor = {
  name: 'network-budget',
  pre() {
    const exhausted = activeScope()?.meter.exhausted();
    return exhausted ? halt(exhausted.message) : undefined;
  },
};

function asDelegation(scope: NetworkScope, call: CallRecord): CallRecord {
  const delegation = call.toolCallId === undefined ? undefined : scope.delegations.get(call.toolCallId);
  return delegation && call.type === 'tool' ? { ...call, type: 'agent', usage: delegation.usage } : call;
}
