import type { JsonValue } from '../../core/messages.ts';
import type { ActionResult } from '../governed-tool.ts';
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
    const ask = context.prompts.render('runner.propose', {
      goal: state.goal,
      history: JSON.stringify(state.history),
      tools: JSON.stringify(tools),
    });
    const asked = await context.agentStep('propose', {
      phase: 'plan',
      input: ask.text,
      promptRefs: [ask.ref],
      planSig: null,
      allow: () => 'The planner proposes actions; it does not run tools.',
    });
    const step = extractJson(asked.output) as PlanStep | undefined;
    return step?.type ? step : { type: 'finish', message: asked.output };
  },
};

/** Runs the proposed tool with `context.runTool`: journaled, and held to the run's policy like any governed call. */
export const toolExecutor: Executor = {
  async execute(step, context) {
    return context.runTool(step.toolId ?? '', step.input ?? {});
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
