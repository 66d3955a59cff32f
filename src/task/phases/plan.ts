import { AgencyError } from '../../core/errors.ts';
import type { Message } from '../../core/messages.ts';
import { type Plan, PLAN_VERSION, planSchema, signPlan } from '../contracts/plan.ts';
import { type LoopContext, relativeToRoot } from '../loop.ts';
import { decidePlan, type PlanApproval } from '../plan-policy.ts';
import { appendNote, writeTodo } from '../progress-files.ts';
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

/** The instruction for Plan, listing the tools the plan may allow. */
export function planAsk(context: LoopContext): string {
  const tools = context.tools
    .list()
    .filter((tool) => tool.name !== 'request_replan')
    .map((tool) => `- ${tool.name} (${tool.effects}): ${tool.description}`)
    .join('\n');
  return [
    'Phase: PLAN. Write the plan for doing the task, as one JSON object and nothing else, with this shape:',
    '{"goal": string, "steps": [{"id": string, "title": string, "description"?: string, "tools"?: [string]}],',
    ' "allowed_tools": [string], "acceptance": [{"id": string, "criterion": string, "check"?: CHECK}]}',
    'CHECK is optional and deterministic: {"type":"file_exists","path":"artifacts/…"} | {"type":"contains","path":"artifacts/…","text":"…"}',
    ' | {"type":"json_validate","path":"artifacts/….json","schema":{…}} | {"type":"test_runner"}. Paths are relative to progress/.',
    '"allowed_tools" lists every tool the work needs; only these will be allowed when acting. Available tools:',
    tools,
  ].join('\n');
}

/**
 * Plan: the model writes a `plan.v1`, validated with zod and against the available tools. A malformed plan gets one
 * repair attempt that quotes the validation errors; a second failure stops the run with `plan_invalid`. The plan is
 * written as `plan/NNNN.json` and `plan/current.json`, signed, and announced with `plan.proposed`.
 */
export async function planPhase(context: LoopContext): Promise<SignedPlan> {
  const first = await context.agentStep('plan', {
    phase: 'plan',
    input: planAsk(context),
    context: await context.contextFor('plan'),
    planSig: null,
    allow: (tool) => (isGatherTool(tool) ? true : `Plan only reads; ${tool.name} waits for Act`),
  });
  let parsed = parsePlan(first.output, context);
  if (!parsed.ok) {
    const repaired = await context.agentStep('plan-repair', {
      phase: 'plan',
      input:
        `That plan is not valid:\n${parsed.problems.map((problem) => `- ${problem}`).join('\n')}\n` +
        'Reply with the corrected plan as a single JSON object and nothing else.',
      context: [...(await context.contextFor('plan')), ...first.messages],
      planSig: null,
      allow: (tool) => (isGatherTool(tool) ? true : `Plan only reads; ${tool.name} waits for Act`),
    });
    parsed = parsePlan(repaired.output, context);
    if (!parsed.ok) return planFromDraft(context, repaired.output, parsed.problems);
  }
  return writePlan(context, parsed.plan, 'proposed by the model');
}

/**
 * After the model failed to write a valid plan, its last attempt waits in `plan/draft.json` for a person to fix. A
 * resumed run finds the invalid attempts in the journal again and reads the draft instead: a valid draft is signed
 * and goes to approval like any plan; an invalid one stops the run again, naming what is still wrong.
 */
async function planFromDraft(context: LoopContext, lastAttempt: string, problems: string[]): Promise<SignedPlan> {
  const { session, paths } = context;
  const shown = relativeToRoot(paths, paths.planDraft);
  const draft = await session.files.readText(paths.planDraft);
  if (draft !== undefined) {
    const fixed = parsePlan(draft, context);
    if (fixed.ok) return writePlan(context, fixed.plan, `${shown} fixed by hand after the model's plan was invalid`);
    problems = fixed.problems;
  } else {
    const json = extractJson(lastAttempt);
    await session.files.write(paths.planDraft, json === undefined ? lastAttempt : `${JSON.stringify(json, null, 2)}\n`);
  }
  throw new AgencyError(
    'plan_invalid',
    `${draft === undefined ? 'The model did not produce a valid plan after one repair attempt' : `${shown} is not a valid plan yet`}:\n` +
      `${problems.map((problem) => `- ${problem}`).join('\n')}\n` +
      `Fix ${shown} (the model's last attempt is there), then run \`agency resume\`.`,
    { details: { path: shown, problems } },
  );
}

/**
 * Writes a new plan version, signs it and journals `plan.proposed`. The run's policy decides on the plan first
 * (`decidePlan`): a denial stops the run, changes are applied, and a rule requiring approval is recorded. Secrets are
 * scrubbed from the plan before the policy sees it and again before it is signed, so the plan that is approved,
 * written and acted on is the scrubbed one.
 */
export async function writePlan(
  context: LoopContext,
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
    const text = `${JSON.stringify(plan, null, 2)}\n`;
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
      },
    });
    await appendNote(session.files, paths, `plan: v${version} signed ${signature.slice(0, 12)}… (${origin})`);
    await session.boundary({ plan_sig: signature });
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

/** Extracts and validates a plan from model text. */
export function parsePlan(
  text: string,
  context: LoopContext,
): { ok: true; plan: Plan } | { ok: false; problems: string[] } {
  const json = extractJson(text);
  if (json === undefined) return { ok: false, problems: ['the answer is not a JSON object'] };
  const parsed = planSchema.safeParse({ version: PLAN_VERSION, ...(json as object) });
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map(
        (issue) => `"${issue.path.map(String).join('.') || '(plan)'}": ${issue.message}`,
      ),
    };
  }
  const known = new Set(context.tools.names());
  const problems = parsed.data.allowed_tools
    .filter((name) => !known.has(name))
    .map((name) => `"allowed_tools": "${name}" is not an available tool`);
  for (const step of parsed.data.steps) {
    for (const tool of step.tools ?? []) {
      if (!parsed.data.allowed_tools.includes(tool))
        problems.push(`step "${step.id}" uses "${tool}", which is not in allowed_tools`);
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, plan: parsed.data };
}

/** The first JSON object in a model's answer, fenced or not. */
export function extractJson(text: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text)?.[1];
  const candidate = fenced ?? text;
  const start = candidate.indexOf('{');
  const end = candidate.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    const value: unknown = JSON.parse(candidate.slice(start, end + 1));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The non-system messages of an agent step, for a later step to continue the conversation. */
export type StepMessages = Message[];
