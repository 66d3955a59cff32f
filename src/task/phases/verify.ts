import type { RenderedPrompt } from '../../prompts/prompt-store.ts';
import { z } from 'zod';
import { parseStructuredAnswer } from '../../agent/structured-output.ts';
import type { AcceptanceCheck, Plan } from '../contracts/plan.ts';
import { VERIFY_VERSION, type VerifyReport } from '../contracts/verify-report.ts';
import { type PhaseContext, relativeToRoot } from '../loop.ts';
import { runDeliverables } from '../deliverables.ts';
import { appendNote, verifyNote, writeTodo } from '../progress-files.ts';
import type { SignedPlan } from './plan.ts';
import { isGatherTool } from './gather.ts';
import { type CheckResult, runFileCheck } from './verify-checks.ts';

/**
 * Verify: checks every acceptance criterion with its deterministic check (if it has one) and with the model's
 * judgement, and writes `verify/NNNN-report.json`. A criterion passes only when every method passes. The Verify
 * reserve of the budgets is available here.
 */
export async function verifyPhase(
  context: PhaseContext,
  { signed, attempt }: { signed: SignedPlan; attempt: number },
): Promise<VerifyReport> {
  const { session, paths } = context;
  session.budgets.setVerifying(true);
  try {
    const checks = await context.step(`verify-checks-${attempt}`, 'verify', async () => {
      const results: Record<string, CheckResult> = {};
      for (const criterion of signed.plan.acceptance) {
        if (criterion.check) results[criterion.id] = await runCheck(context, criterion.check);
      }
      return results;
    });
    const { deliverables, refused } = await runDeliverables(session);
    const ask = verifyAsk(
      context,
      signed,
      checks,
      deliverables.map((file) => file.path),
      refused,
    );
    const judged = await context.agentStep(`verify-${attempt}`, {
      phase: 'verify',
      input: ask.text,
      promptRefs: [ask.ref],
      context: await context.contextFor('verify'),
      schema: verifyAnswerSchema(signed.plan),
      schemaName: 'judgement',
      schemaDescription: 'Whether the work meets each acceptance criterion, with evidence',
      planSig: signed.signature,
      allow: (tool) => (isGatherTool(tool) ? true : `Verify only reads; ${tool.name} is not allowed here`),
    });
    return await context.step(`verify-report-${attempt}`, 'verify', async (id) => {
      const judgement = parseJudgement(judged.output, signed.plan);
      const criteria = signed.plan.acceptance.map((criterion) => {
        const check = checks[criterion.id];
        const model = judgement.get(criterion.id);
        const methods = [...(check ? [criterion.check?.type ?? 'check'] : []), 'model'];
        const evidence = [
          check ? `${criterion.check?.type}: ${check.evidence}` : undefined,
          `model: ${model?.evidence ?? judgement.missing}`,
        ]
          .filter(Boolean)
          .join(' | ');
        return {
          id: criterion.id,
          criterion: criterion.criterion,
          passed: (check?.passed ?? true) && model?.passed === true,
          methods,
          evidence,
          artifacts: check?.artifacts ?? [],
        };
      });
      const report: VerifyReport = {
        version: VERIFY_VERSION,
        task_id: session.spec.task_id,
        attempt,
        plan_sig: signed.signature,
        passed: criteria.every((criterion) => criterion.passed),
        criteria,
        created_at: new Date(session.now()).toISOString(),
      };
      const file = paths.verifyReport(attempt);
      await context.session.files.write(file, verifyReportText(report));
      session.noteVerifyAttempt(attempt);
      const passedCount = criteria.filter((criterion) => criterion.passed).length;
      session.emit({
        type: report.passed ? 'verify.pass' : 'verify.fail',
        step: id,
        message: `Verify attempt ${attempt}: ${passedCount}/${criteria.length} criteria passed`,
        data: { attempt, report: relativeToRoot(paths, file), passed: passedCount, total: criteria.length },
      });
      if (report.passed) await writeTodo(context.session.files, paths, signed.plan, true);
      await appendNote(context.session.files, paths, verifyNote(attempt, report.passed, passedCount, criteria.length));
      return report;
    });
  } finally {
    session.budgets.setVerifying(false);
  }
}

/** The text of `verify/NNNN-report.json`. */
export function verifyReportText(report: unknown): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

function verifyAsk(
  context: PhaseContext,
  signed: SignedPlan,
  checks: Record<string, CheckResult>,
  deliverables: string[],
  refused: string[],
): RenderedPrompt {
  const criteria = signed.plan.acceptance.map((criterion) => {
    const check = checks[criterion.id];
    return `- ${criterion.id}: ${criterion.criterion}${check ? ` [deterministic check ${check.passed ? 'passed' : 'FAILED'}: ${check.evidence}]` : ''}`;
  });
  return context.prompts.render('runner.verify', {
    criteria: criteria.join('\n'),
    deliverables: deliverables.length > 0 ? deliverables.join(', ') : '(none under progress/artifacts/)',
    refused: refused.map((line) => `- ${line}`).join('\n'),
  });
}

/**
 * The model's judgement in Verify: one entry per acceptance criterion of the plan, by id. The agent validates the
 * answer with it, and a repair turn asks again for a criterion left out.
 */
export function verifyAnswerSchema(plan: Plan) {
  const ids = plan.acceptance.map((criterion) => criterion.id);
  const judged = z.object({ id: z.enum(ids as [string, ...string[]]), passed: z.boolean(), evidence: z.string() });
  return z.object({ criteria: z.array(judged) }).superRefine((answer, issues) => {
    const given = new Set(answer.criteria.map((criterion) => criterion.id));
    for (const id of ids) {
      if (!given.has(id))
        issues.addIssue({ code: 'custom', path: ['criteria'], message: `criterion "${id}" is not judged` });
    }
  });
}

type Judgement = Map<string, { passed: boolean; evidence: string }> & { missing: string };

// An answer that is still invalid after its repair turn judges nothing, and says why in each criterion's evidence.
function parseJudgement(text: string, plan: Plan): Judgement {
  const parsed = parseStructuredAnswer(verifyAnswerSchema(plan), text);
  const judged = new Map<string, { passed: boolean; evidence: string }>();
  if (!parsed.success) return Object.assign(judged, { missing: `no valid judgement (${parsed.issues.join('; ')})` });
  for (const { id, passed, evidence } of parsed.object.criteria) judged.set(id, { passed, evidence });
  return Object.assign(judged, { missing: 'no judgement was given' });
}

async function runCheck(context: PhaseContext, check: AcceptanceCheck): Promise<CheckResult> {
  if (check.type === 'test_runner') {
    const tool = context.tools.get('test_runner');
    if (!tool) return { passed: false, evidence: 'no test_runner tool is configured', artifacts: [] };
    const outcome = await context.tools.run({ toolCallId: 'verify-test-runner', toolName: 'test_runner', input: {} });
    const output = outcome.output as { passed?: boolean; summary?: string } | undefined;
    return {
      passed: outcome.ok && output?.passed === true,
      evidence: output?.summary ?? outcome.error?.message ?? 'no summary',
      artifacts: [],
    };
  }
  return runFileCheck(context.paths.progress, check);
}
