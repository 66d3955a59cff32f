import { AgencyError } from '../../core/errors.ts';
import type { RenderedPrompt } from '../../prompts/prompt-store.ts';
import type { Message } from '../../core/messages.ts';
import { type Plan, planSchema, signPlan } from '../contracts/plan.ts';
import { type PhaseContext, type ReplanRequest, relativeToRoot } from '../loop.ts';
import { parseContractFile } from '../task-spec.ts';
import type { SignedPlan } from './plan.ts';

/** How an Act step ended. */
export type ActOutcome = {
  output: string;
  messages: Message[];
  /** The model asked to add tools to the plan. */
  replan?: ReplanRequest;
  /** `plan/current.json` was edited after approval; the edited plan needs approval before work goes on. */
  edited?: boolean;
};

/** What Act is given. */
export type ActOptions = {
  signed: SignedPlan;
  /** What to fix first (e.g. the `runner.refine` prompt after a failed Verify), placed before the ask. */
  feedback?: string;
  /** The conversation to continue, placed after the context. */
  continueFrom?: Message[];
  /** The templates `feedback` and `continueFrom` were rendered from (`id@version`), journaled with the calls. */
  promptRefs?: readonly string[];
};

/** The instruction for Act: the `runner.act` prompt with the plan ({@link planForAct}), after any feedback. */
export function actAsk(context: PhaseContext, plan: Plan, feedback = ''): RenderedPrompt {
  return context.prompts.render('runner.act', { feedback, plan: planForAct(plan) });
}

/**
 * The approved plan as Act's ask shows it: its goal, steps, allowed tools and criteria as short lines, each check as
 * the JSON Verify will run. Everything a model acts on is there; the contract version and JSON punctuation are not.
 * A field's line breaks are folded (a description's are indented), so no field can pass for another line of the plan.
 */
export function planForAct(plan: Plan): string {
  const steps = plan.steps.map(
    (step) =>
      `- ${step.id}: ${oneLine(step.title)}${step.tools?.length ? ` (${step.tools.join(', ')})` : ''}` +
      (step.description ? `\n  ${step.description.trim().replace(/\s*\n\s*/g, '\n  ')}` : ''),
  );
  const criteria = plan.acceptance.map(
    (criterion) =>
      `- ${criterion.id}: ${oneLine(criterion.criterion)}` +
      (criterion.check ? ` [check ${JSON.stringify(criterion.check)}]` : ''),
  );
  return [
    `Goal: ${oneLine(plan.goal)}`,
    'Steps:',
    ...steps,
    `allowed_tools: ${plan.allowed_tools.join(', ') || 'none'}`,
    'Acceptance criteria:',
    ...criteria,
  ].join('\n');
}

function oneLine(text: string): string {
  return text.trim().replace(/\s*[\r\n]+\s*/g, ' ');
}

/**
 * Act: runs the approved plan through the agent, with a gate that lets only the plan's `allowed_tools` run, and that
 * checks the plan's signature before every call: a plan edited by hand after approval refuses every call and ends
 * the step so the edit can be approved. A model that needs more tools calls `request_replan`, which also ends it.
 */
export async function actPhase(
  context: PhaseContext,
  { signed, feedback, continueFrom = [], promptRefs = [] }: ActOptions,
): Promise<ActOutcome> {
  const { paths, session } = context;
  let edited = false;
  const checkPlan = async (): Promise<string | undefined> => {
    const raw = (await session.files.readText(paths.planCurrent).catch(() => undefined)) ?? '';
    let current: string | undefined;
    try {
      current = signPlan(parseContractFile(paths.planCurrent, raw, planSchema));
    } catch {
      current = undefined;
    }
    if (current === signed.signature) return undefined;
    if (!edited) {
      edited = true;
      session.emit({
        type: 'plan.changed',
        message: `${relativeToRoot(paths, paths.planCurrent)} changed after approval; its tools are refused until it is approved`,
        data: { approved_sig: signed.signature, current_sig: current ?? null },
      });
    }
    return `The plan was edited after it was approved (signature ${signed.signature.slice(0, 12)}… no longer matches). No tool runs until the new plan is approved.`;
  };
  const ask = actAsk(context, signed.plan, feedback);
  const act = await context.agentStep('act', {
    phase: 'act',
    input: ask.text,
    promptRefs: [ask.ref, ...promptRefs],
    context: [...(await context.contextFor('act')), ...continueFrom],
    planSig: signed.signature,
    allow: (tool) =>
      tool.name === 'request_replan' || signed.plan.allowed_tools.includes(tool.name)
        ? true
        : `"${tool.name}" is not in the approved plan's allowed_tools (${signed.plan.allowed_tools.join(', ') || 'none'}). ` +
          'To use it, call request_replan with the tools to add and the reason.',
    checkPlan,
    haltAfterTool: (call) => {
      if (edited) return 'Act stopped: the plan was edited and must be approved again.';
      if (call.toolName === 'request_replan') return 'Act stopped for re-planning.';
      return undefined;
    },
    capture: () => {
      const replan = context.takeReplanRequest();
      return { replan, ...(edited ? { edited: true } : {}) };
    },
  });
  return {
    output: act.output,
    messages: act.messages,
    ...(act.captured?.replan ? { replan: act.captured.replan as ReplanRequest } : {}),
    ...(act.captured?.edited ? { edited: true } : {}),
  };
}

/** The plan with tools added for a re-plan request. */
export function planWithTools(plan: Plan, request: ReplanRequest): Plan {
  const tools = [...new Set([...plan.allowed_tools, ...request.addTools])];
  return { ...plan, allowed_tools: tools };
}

/**
 * Reads the hand-edited `plan/current.json`.
 * @throws AgencyError `plan_invalid` naming the file and the fields to fix.
 */
export async function readEditedPlan(context: PhaseContext): Promise<Plan> {
  const { paths, session } = context;
  try {
    return parseContractFile(paths.planCurrent, (await session.files.readText(paths.planCurrent)) ?? '', planSchema);
  } catch (cause) {
    throw new AgencyError(
      'plan_invalid',
      `${(cause as Error).message}. Fix the plan file, then run \`agency resume\`.`,
      { cause },
    );
  }
}
