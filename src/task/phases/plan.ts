import { extractJson, parseStructuredAnswer } from '../../agent/structured-output.ts';
import { AgencyError } from '../../core/errors.ts';
import type { RenderedPrompt } from '../../prompts/prompt-store.ts';
import type { Message } from '../../core/messages.ts';
import { type Plan, PLAN_VERSION, planSchema, signPlan } from '../contracts/plan.ts';
import { type PhaseContext, relativeToRoot } from '../loop.ts';
import { decidePlan, type PlanApproval } from '../plan-policy.ts';
import { appendNote, planNote, planText, writeTodo } from '../progress-files.ts';
import type { PlanChanges } from '../contracts/approvals.ts';
import { planChanges } from './plan-changes.ts';
import { isGatherTool } from './gather.ts';

/**
 * A plan as written, with its version and signature, what it changes against the plan before it, and the policy
 * rule that requires its approval (null when none does; absent in runs journaled before plans went through the
 * policy, whose approval is decided again).
 */
export type SignedPlan = {
  plan: Plan;
  version: number;
  signature: string;
  path: string;
  changes?: PlanChanges;
  approval?: PlanApproval | null;
};

/**
 * The instruction for Plan (the `runner.plan` prompt), listing the tools the plan may allow. The plan's shape comes
 * with the response format.
 */
export function planAsk(context: PhaseContext): RenderedPrompt {
  const tools = context.tools
    .list()
    .filter((tool) => tool.name !== 'request_replan')
    .map((tool) => `- ${tool.name} (${tool.effects}): ${tool.description}`)
    .join('\n');
  return context.prompts.render('runner.plan', { tools });
}

/**
 * The plan the model writes: `plan.v1` without its version, whose `allowed_tools` must be tools of the run and
 * whose steps may use only allowed tools. The agent validates the answer with it, and a repair turn quotes its
 * problems.
 */
export function planAnswerSchema(context: PhaseContext) {
  const known = new Set(context.tools.names());
  return planSchema.omit({ version: true }).superRefine((plan, issues) => {
    plan.allowed_tools.forEach((name, index) => {
      if (!known.has(name))
        issues.addIssue({
          code: 'custom',
          path: ['allowed_tools', index],
          message: `"${name}" is not an available tool`,
        });
    });
    plan.steps.forEach((step, index) => {
      for (const tool of step.tools ?? []) {
        if (!plan.allowed_tools.includes(tool))
          issues.addIssue({
            code: 'custom',
            path: ['steps', index, 'tools'],
            message: `step "${step.id}" uses "${tool}", which is not in allowed_tools`,
          });
      }
    });
  });
}

/**
 * Plan: the model writes a `plan.v1` as a structured answer (`planAnswerSchema`), validated with zod and against
 * the available tools. An invalid plan gets one repair turn quoting the problems; a second failure stops the run with
 * `plan_invalid`. The plan is written as `plan/NNNN.json` and `plan/current.json`, signed, and announced with
 * `plan.proposed`.
 */
export async function planPhase(context: PhaseContext): Promise<SignedPlan> {
  const ask = planAsk(context);
  const answer = await context.agentStep('plan', {
    phase: 'plan',
    input: ask.text,
    promptRefs: [ask.ref],
    context: await context.contextFor('plan'),
    schema: planAnswerSchema(context),
    schemaName: 'plan',
    schemaDescription: 'The plan for doing the task',
    planSig: null,
    allow: (tool) => (isGatherTool(tool) ? true : `Plan only reads; ${tool.name} waits for Act`),
  });
  const parsed = parsePlan(answer.output, context);
  if (!parsed.ok) return planFromDraft(context, answer.output, parsed.problems);
  return writePlan(context, parsed.plan, 'proposed by the model');
}

/**
 * After the model failed to write a valid plan, its last attempt waits in `plan/draft.json` for a person to fix. A
 * resumed run finds the invalid attempts in the journal again and reads the draft instead: a valid draft is signed
 * and goes to approval like any plan; an invalid one stops the run again, naming what is still wrong.
 */
async function planFromDraft(context: PhaseContext, lastAttempt: string, problems: string[]): Promise<SignedPlan> {
  const { session, paths } = context;
  const shown = relativeToRoot(paths, paths.planDraft);
  const draft = await session.files.readText(paths.planDraft);
  if (draft !== undefined) {
    const fixed = parseDraft(draft, context, shown);
    if (fixed.ok) return writePlan(context, fixed.plan, `${shown} fixed by hand after the model's plan was invalid`);
    problems = fixed.problems;
  } else {
    const json = extractJson(lastAttempt);
    await session.files.write(paths.planDraft, json === undefined ? lastAttempt : `${JSON.stringify(json, null, 2)}\n`);
  }
  throw new AgencyError(
    'plan_invalid',
    `${draft === undefined ? 'The model did not produce a valid plan after its repair turn' : `${shown} is not a valid plan yet`}:\n` +
      `${problems.map((problem) => `- ${problem}`).join('\n')}\n` +
      `Fix ${shown} (the model's last attempt is there), then run \`agency resume\`.`,
    { details: { path: shown, problems } },
  );
}

/**
 * Writes a new plan version, signs it and journals `plan.proposed`, which holds the plan, so `plan/NNNN.json` and
 * `plan/current.json` are rebuilt from the journal if lost. The run's policy decides on the plan first
 * (`decidePlan`): a denial stops the run, changes are applied, and a rule requiring approval is recorded. Secrets are
 * scrubbed from the plan before the policy sees it and again before it is signed, so the plan that is approved,
 * written and acted on is the scrubbed one.
 */
export async function writePlan(
  context: PhaseContext,
  proposed: Plan,
  origin: string,
  previous?: Plan,
): Promise<SignedPlan> {
  return context.step('write-plan', 'files', async (id) => {
    const { paths, session } = context;
    const verdict = decidePlan(session, context.policy, session.redact(proposed), id);
    const plan = session.redact(verdict.plan);
    const version = session.fold.planVersion + 1;
    const signature = signPlan(plan);
    const changes = previous === undefined ? undefined : planChanges(previous, plan, origin);
    const text = planText(plan);
    await session.files.write(paths.plan(version), text);
    await session.files.write(paths.planCurrent, text);
    await writeTodo(session.files, paths, plan, false);
    session.fold.planVersion = version;
    session.fold.planSig = signature;
    session.emit({
      type: 'plan.proposed',
      step: id,
      message: `Plan v${version} (${plan.steps.length} steps, tools: ${plan.allowed_tools.join(', ') || 'none'}) ${origin}`,
      data: {
        version,
        path: relativeToRoot(paths, paths.plan(version)),
        plan_sig: signature,
        allowed_tools: plan.allowed_tools,
        origin,
        ...(changes ? { changes } : {}),
        plan,
      },
    });
    await appendNote(session.files, paths, planNote(version, signature, origin));
    session.update({ plan_sig: signature });
    return {
      plan,
      version,
      signature,
      path: relativeToRoot(paths, paths.planCurrent),
      ...(changes ? { changes } : {}),
      approval: verdict.approval,
    };
  });
}

// A draft fixed by hand may be written like every other plan file, with its "version"; problems name the file.
function parseDraft(text: string, context: PhaseContext, shown: string): ReturnType<typeof parsePlan> {
  const json = extractJson(text);
  const withoutVersion =
    typeof json === 'object' &&
    json !== null &&
    !Array.isArray(json) &&
    'version' in json &&
    json.version === PLAN_VERSION
      ? JSON.stringify({ ...json, version: undefined })
      : text;
  const parsed = parsePlan(withoutVersion, context);
  return parsed.ok
    ? parsed
    : { ok: false, problems: parsed.problems.map((problem) => problem.replace('(answer)', shown)) };
}

/** Parses and validates a plan from the model's answer (`planAnswerSchema`) and gives it its version. */
export function parsePlan(
  text: string,
  context: PhaseContext,
): { ok: true; plan: Plan } | { ok: false; problems: string[] } {
  const parsed = parseStructuredAnswer(planAnswerSchema(context), text);
  return parsed.success
    ? { ok: true, plan: { version: PLAN_VERSION, ...parsed.object } }
    : { ok: false, problems: parsed.issues };
}

/** The non-system messages of an agent step, for a later step to continue the conversation. */
export type StepMessages = Message[];
