import { canonicalDigest } from '../../core/canonical-json.ts';
import type { JsonValue } from '../../core/messages.ts';
import { governedPolicy } from '../governed-policy.ts';
import type { Loop, LoopContext, LoopOutcome } from '../loop.ts';
import { extractJson } from '../../agent/structured-output.ts';

/** The next action, as seed 002's Planner proposes it. */
export type PlanStep = {
  type: 'tool' | 'message' | 'finish';
  toolId?: string;
  input?: JsonValue;
  message?: string;
  reason?: string;
};

/** What an action produced. */
export type ActionResult = { ok: boolean; output: JsonValue; error?: string };

/** What the planner sees: the goal and every action so far. */
export type PlannerState = { goal: string; history: Array<{ step: PlanStep; result?: ActionResult; note?: string }> };

/** Proposes the next action. */
export type Planner = { plan(state: PlannerState, context: LoopContext): Promise<PlanStep> };
/** Carries an action out. */
export type Executor = { execute(step: PlanStep, context: LoopContext): Promise<ActionResult> };
/** Decides, after an action, whether the goal is reached. */
export type Reflector = {
  reflect(state: PlannerState, context: LoopContext): Promise<{ done: boolean; note?: string }>;
};

/** Asks the model for the next action as JSON. */
export const modelPlanner: Planner = {
  async plan(state, context) {
    const tools = context.tools.names().filter((name) => name !== 'request_replan');
    const asked = await context.agentStep('propose', {
      phase: 'plan',
      input:
        `Goal: ${state.goal}\nActions so far:\n${JSON.stringify(state.history)}\n` +
        `Propose the next action as one JSON object: {"type":"tool","toolId":one of ${JSON.stringify(tools)},"input":{…},"reason":"…"}, ` +
        'or {"type":"finish","message":"the final answer"}. Do not call tools yourself.',
      planSig: null,
      allow: () => 'The planner proposes actions; it does not run tools.',
    });
    const step = extractJson(asked.output) as PlanStep | undefined;
    return step?.type ? step : { type: 'finish', message: asked.output };
  },
};

/**
 * Runs the proposed tool through the tool set, journaled like any governed call and held to the run's policy like
 * the default loop's calls: a denial refuses it, a required approval (the spec's `require_tools` among them) is
 * asked through the run's broker, and changes to its arguments or output apply.
 */
export const toolExecutor: Executor = {
  async execute(step, context) {
    const { session } = context;
    const name = step.toolId ?? '';
    const tool = context.tools.get(name);
    if (!tool) return { ok: false, output: null, error: `unknown tool ${name}` };
    const argsDigest = canonicalDigest(step.input ?? null);
    const site = { step: `execute-${argsDigest.slice(0, 8)}`, planSig: null };
    const policy = governedPolicy(session, context.policy, context.tools, () => site);
    const call = { type: 'tool-call' as const, toolCallId: argsDigest, toolName: name, input: step.input ?? {} };
    const checked = await policy.preTool({ call });
    if (checked && 'block' in checked) return { ok: false, output: null, error: checked.block };
    const input = checked && 'call' in checked ? checked.call.input : call.input;
    session.emit({
      type: 'tool.call',
      message: name,
      data: {
        tool_call_id: argsDigest,
        tool: name,
        args: (input ?? null) as JsonValue,
        args_digest: argsDigest,
        effects: tool.effects,
        idempotent: tool.idempotent,
      },
    });
    if (tool.effects !== 'read') await session.journal.flush();
    const writes = tool.effects === 'write' || tool.effects === 'exec';
    if (writes) await session.toolWrites.begin();
    const ran = await context.tools.run({ ...call, input }, { signal: session.signal }).finally(async () => {
      if (writes) await session.toolWrites.end();
    });
    const filtered = await policy.postTool({ call, outcome: ran });
    const outcome = filtered && 'outcome' in filtered ? filtered.outcome : ran;
    session.emit({
      type: 'tool.result',
      message: `${name} ${outcome.ok ? 'ok' : 'failed'}`,
      data: { tool_call_id: argsDigest, tool: name, ok: outcome.ok, model_output: outcome.modelOutput },
      error: outcome.error,
    });
    return {
      ok: outcome.ok,
      output: (outcome.ok ? (outcome.modelOutput as { value?: JsonValue }).value : null) ?? null,
      ...(outcome.error ? { error: outcome.error.message } : {}),
    };
  },
};

/** The goal is reached when the planner says finish. */
export const finishReflector: Reflector = {
  async reflect(state) {
    const last = state.history.at(-1);
    return { done: last?.step.type === 'finish' };
  },
};

/**
 * Seed 002's Plan → Act → Reflect loop with pluggable parts: the planner proposes one action at a time, the executor
 * carries it out, the reflector decides whether to go on. Every action is a durable step, so it resumes after a
 * crash like the default loop.
 */
export function planActReflect({
  planner = modelPlanner,
  executor = toolExecutor,
  reflector = finishReflector,
  maxActions = 20,
}: { planner?: Planner; executor?: Executor; reflector?: Reflector; maxActions?: number } = {}): Loop {
  return {
    name: 'plan-act-reflect',
    version: '1',
    async run(context): Promise<LoopOutcome> {
      const state: PlannerState = { goal: context.goal, history: [] };
      for (let index = 0; index < maxActions; index++) {
        const step = await planner.plan(state, context);
        const entry: PlannerState['history'][number] = { step };
        state.history.push(entry);
        if (step.type === 'tool') {
          entry.result = await context.step('execute', 'action', () => executor.execute(step, context));
        }
        const reflection = await context.step('reflect', 'reflect', () => reflector.reflect(state, context));
        if (reflection.note) entry.note = reflection.note;
        if (reflection.done) return { reason: 'completed', output: step.message ?? '' };
      }
      return { reason: 'no_more_tools', output: state.history.at(-1)?.step.message ?? '' };
    },
  };
}
