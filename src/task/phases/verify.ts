import type { AcceptanceCheck } from '../contracts/plan.ts';
import { VERIFY_VERSION, type VerifyReport } from '../contracts/verify-report.ts';
import { type LoopContext, relativeToRoot } from '../loop.ts';
import { runDeliverables } from '../deliverables.ts';
import { appendNote, writeTodo } from '../progress-files.ts';
import { extractJson, type SignedPlan } from './plan.ts';
import { isGatherTool } from './gather.ts';
import { type CheckResult, runFileCheck } from './verify-checks.ts';

/**
 * Verify: checks every acceptance criterion with its deterministic check (if it has one) and with the model's
 * judgement, and writes `verify/NNNN-report.json`. A criterion passes only when every method passes. The Verify
 * reserve of the budgets is available here.
 */
export async function verifyPhase(
  context: LoopContext,
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
    const judged = await context.agentStep(`verify-${attempt}`, {
      phase: 'verify',
      input: verifyAsk(
        signed,
        checks,
        deliverables.map((file) => file.path),
        refused,
      ),
      context: await context.contextFor('verify'),
      planSig: signed.signature,
      allow: (tool) => (isGatherTool(tool) ? true : `Verify only reads; ${tool.name} is not allowed here`),
    });
    return await context.step(`verify-report-${attempt}`, 'verify', async (id) => {
      const judgement = parseJudgement(judged.output);
      const criteria = signed.plan.acceptance.map((criterion) => {
        const check = checks[criterion.id];
        const model = judgement.get(criterion.id);
        const methods = [...(check ? [criterion.check?.type ?? 'check'] : []), 'model'];
        const evidence = [
          check ? `${criterion.check?.type}: ${check.evidence}` : undefined,
          `model: ${model?.evidence ?? 'no judgement was given'}`,
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
      await context.session.files.write(file, `${JSON.stringify(report, null, 2)}\n`);
      session.noteVerifyAttempt(attempt);
      const passedCount = criteria.filter((criterion) => criterion.passed).length;
      session.emit({
        type: report.passed ? 'verify.pass' : 'verify.fail',
        step: id,
        message: `Verify attempt ${attempt}: ${passedCount}/${criteria.length} criteria passed`,
        data: { attempt, report: relativeToRoot(paths, file), passed: passedCount, total: criteria.length },
      });
      if (report.passed) await writeTodo(context.session.files, paths, signed.plan, true);
      await appendNote(
        context.session.files,
        paths,
        `verify: attempt ${attempt} ${report.passed ? 'passed' : 'failed'} (${passedCount}/${criteria.length})`,
      );
      return report;
    });
  } finally {
    session.budgets.setVerifying(false);
  }
}

function verifyAsk(
  signed: SignedPlan,
  checks: Record<string, CheckResult>,
  deliverables: string[],
  refused: string[],
): string {
  const criteria = signed.plan.acceptance.map((criterion) => {
    const check = checks[criterion.id];
    return `- ${criterion.id}: ${criterion.criterion}${check ? ` [deterministic check ${check.passed ? 'passed' : 'FAILED'}: ${check.evidence}]` : ''}`;
  });
  return [
    'Phase: VERIFY. Judge whether the work meets each acceptance criterion. Read the deliverables with the read-only',
    'tools. Answer with one JSON object and nothing else: {"criteria": [{"id": string, "passed": boolean, "evidence": string}]}.',
    '',
    'Criteria:',
    ...criteria,
    '',
    `Deliverables: ${deliverables.length > 0 ? deliverables.join(', ') : '(none under progress/artifacts/)'}`,
    ...(refused.length > 0 ? ['', 'Not delivered:', ...refused.map((line) => `- ${line}`)] : []),
  ].join('\n');
}

function parseJudgement(text: string): Map<string, { passed: boolean; evidence: string }> {
  const judged = new Map<string, { passed: boolean; evidence: string }>();
  const json = extractJson(text) as { criteria?: unknown } | undefined;
  if (!Array.isArray(json?.criteria)) return judged;
  for (const item of json.criteria as Array<Record<string, unknown>>) {
    if (typeof item?.id === 'string')
      judged.set(item.id, { passed: item.passed === true, evidence: String(item.evidence ?? '') });
  }
  return judged;
}

async function runCheck(context: LoopContext, check: AcceptanceCheck): Promise<CheckResult> {
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
