import type { JsonValue, Message } from '../core/messages.ts';
import { tracePhase } from '../obs/agent-spans.ts';
import type { PromptSet } from '../prompts/prompt-set.ts';
import type { Policy } from '../policy/create-policy.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import type { AgentStepOptions } from './agent-step.ts';
import type { BudgetsRemaining } from './contracts/events.ts';
import type { SpecFile } from './contracts/spec.ts';
import type { VerifyReport } from './contracts/verify-report.ts';
import { type ActionResult, runGovernedTool } from './governed-tool.ts';
import type { TaskPaths } from './layout.ts';
import type { AgentStepOutput, PhaseContext } from './loop.ts';
import { type ActOptions, type ActOutcome, actPhase, planWithTools, readEditedPlan } from './phases/act.ts';
import { approvePlan } from './phases/approve.ts';
import { gatherPhase } from './phases/gather.ts';
import { planPhase, type SignedPlan, writePlan } from './phases/plan.ts';
import { verifyPhase } from './phases/verify.ts';

/** An event a loop may add to the journal: a note for the people who read it. */
export type LoopEvent = { type: 'warning'; message: string; data?: Record<string, JsonValue> };

/** The default loop's phases, bound to one run. Each is one or more durable steps. */
export type LoopPhases = {
  /** Explores the inputs with read-only tools and writes `findings.md` and `sources.jsonl`. */
  gather(options?: { maxIterations?: number }): Promise<{ findings: string; sources: number }>;
  /** Has the model write a `plan.v1`, signs it and journals `plan.proposed`. */
  plan(): Promise<SignedPlan>;
  /** Asks for the plan's approval when the run's policy requires it, and waits; a denial or expiry ends the run. */
  approve(signed: SignedPlan): Promise<void>;
  /** Carries out the approved plan with the plan's tools only. */
  act(options: ActOptions): Promise<ActOutcome>;
  /** Checks every acceptance criterion and writes `verify/NNNN-report.json`. */
  verify(options: { signed: SignedPlan; attempt: number }): Promise<VerifyReport>;
  /**
   * The next plan version after an Act that asked for it: the hand-edited `plan/current.json` when `act.edited`, or
   * the plan with `act.replan.addTools` added. It is signed and journaled, and needs `approve` before Act goes on.
   */
  replan(signed: SignedPlan, act: ActOutcome): Promise<SignedPlan>;
};

/**
 * What a loop is built from, and all it sees of the run. Everything a loop does that matters goes through `step`
 * (or a phase, made of steps), which makes it durable: a completed step's output is journaled, and when a crashed or
 * stopped run is resumed, the loop runs again from the top, completed steps return their output at once, and the
 * first unfinished step picks up where it was. A loop must therefore decide only from step outputs, not from clocks
 * or randomness.
 */
export type LoopContext = {
  /** The spec the run started with, as journaled. */
  readonly spec: Readonly<SpecFile>;
  readonly goal: string;
  /** The contents of `task/brief.md`. */
  readonly brief: string;
  readonly paths: TaskPaths;
  /** The run's tools (the model sees all of them in every agent step; each step allows some). */
  readonly tools: ToolRegistry;
  /** The run's one policy: the operator's rules and the spec's approval rules. */
  readonly policy: Policy;
  /**
   * The run's prompt templates, resolved when it was opened (agency's built-in ones, or the operator's versions):
   * render a loop's own messages with them, and pass each rendered `ref` as an agent step's `promptRefs`.
   */
  readonly prompts: PromptSet;
  /** Aborted when the run is stopped or cancelled; steps end at their next boundary on their own. */
  readonly signal: AbortSignal;
  /** Journals a note. */
  emit(event: LoopEvent): void;
  /** What is left of each budget (null: no limit). */
  budgets(): BudgetsRemaining;
  /**
   * Runs `work` as a durable step named `name`. Steps get ids `0001-<name>`, `0002-<name>` … in the order they are
   * reached; outputs must be JSON.
   */
  step<T extends JsonValue | object>(name: string, kind: string, work: (id: string) => Promise<T>): Promise<T>;
  /** Runs the run's agent as a durable step, allowing the tools `options.allow` allows. */
  agentStep(name: string, options: AgentStepOptions): Promise<AgentStepOutput>;
  /** The messages that go before a phase's ask: the task context, recalled memory and seeded history. */
  contextFor(phase: string): Promise<Message[]>;
  /** Runs one tool call under the run's policy, journaled; call it inside a `step`. */
  runTool(name: string, input: JsonValue): Promise<ActionResult>;
  readonly phases: LoopPhases;
};

/** The loop's view of a run: the public surface over the runner's phase context. */
export function loopContextOf(phase: PhaseContext): LoopContext {
  const { session } = phase;
  const traced = <T>(name: string, work: () => Promise<T>) => tracePhase({ name, taskId: session.spec.task_id }, work);
  return {
    spec: session.spec,
    goal: phase.goal,
    brief: phase.brief,
    paths: phase.paths,
    tools: phase.tools,
    policy: phase.policy,
    prompts: phase.prompts,
    signal: session.signal,
    emit: (event) => {
      session.emit({ type: event.type, message: event.message, ...(event.data ? { data: event.data } : {}) });
    },
    budgets: () => session.budgets.remaining(),
    step: phase.step,
    agentStep: (name, options) => phase.agentStep(name, options),
    contextFor: phase.contextFor,
    runTool: (name, input) => runGovernedTool(phase, name, input),
    phases: {
      gather: (options) => traced('gather', () => gatherPhase(phase, options)),
      plan: () => traced('plan', () => planPhase(phase)),
      approve: (signed) => traced('approve', () => approvePlan(phase, signed)),
      act: (options) => traced('act', () => actPhase(phase, options)),
      verify: (options) => traced('verify', () => verifyPhase(phase, options)),
      replan: (signed, act) =>
        traced('replan', async () =>
          act.edited
            ? writePlan(phase, await readEditedPlan(phase), 'edited by hand after approval', signed.plan)
            : writePlan(
                phase,
                planWithTools(signed.plan, act.replan ?? { addTools: [], reason: 'no tools asked for' }),
                `re-planned to add ${act.replan?.addTools.join(', ') ?? 'nothing'}: ${act.replan?.reason ?? ''}`,
                signed.plan,
              ),
        ),
    },
  };
}
