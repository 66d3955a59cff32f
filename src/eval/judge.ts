import { join } from 'node:path';
import { errorMessage } from '../core/errors.ts';
import { readFileInScope } from '../tools/guards/path-io.ts';
import { linearRegExp } from '../tools/json-schema/linear-regexp.ts';
import { runFileCheck, VERIFY_MAX_FILE_BYTES, type CheckResult } from '../task/phases/verify-checks.ts';
import type { DoTaskResult } from '../task/result.ts';
import type { DeliverableCheck, Expectation } from './expect.ts';
import type { Overhead } from './overhead.ts';
import type { CaseReport, RunMetrics } from './report.ts';
import type { EvalCase } from './suite.ts';

/** What a case's run left to judge. `result` is absent when the run could not start. */
export type CaseRun = {
  root: string;
  result?: DoTaskResult;
  wallMs: number;
  approvals: number;
  calls: number;
  overhead?: Overhead;
  error?: string;
};

/** An overhead of nothing, for a case that never reached the model. */
export const NO_OVERHEAD: Overhead = {
  parts: { framework: 0, brief: 0, tools: 0, content: 0 },
  transcriptTokens: 0,
  share: 0,
};

/** Judges a finished case against its expectation: `passed` when it ran without error and every check holds. */
export async function judgeCase(evalCase: EvalCase, run: CaseRun): Promise<CaseReport> {
  const metrics = metricsOf(run);
  const checks = run.result ? await checksOf(evalCase.expect, run.result, metrics, run.root) : [];
  const passed = run.error === undefined && run.result !== undefined && checks.every((check) => check.passed);
  return {
    name: evalCase.name,
    status: passed ? 'passed' : 'failed',
    finishReason: run.result?.finishReason ?? null,
    verified: run.result?.verified ?? null,
    error: run.error ?? null,
    checks,
    metrics,
    overhead: run.overhead ?? NO_OVERHEAD,
  };
}

function metricsOf(run: CaseRun): RunMetrics {
  const usage = run.result?.usage;
  return {
    inputTokens: usage?.inputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    totalTokens: usage?.totalTokens ?? 0,
    costUsd: usage ? (usage.costUsd ?? null) : 0,
    steps: run.result?.steps?.length ?? 0,
    modelCalls: run.calls,
    wallMs: Math.round(run.wallMs),
    approvals: run.approvals,
  };
}

type Check = CaseReport['checks'][number];

async function checksOf(expect: Expectation, result: DoTaskResult, metrics: RunMetrics, root: string) {
  const checks: Check[] = [
    {
      name: 'finish_reason',
      passed: result.finishReason === expect.finish_reason,
      detail: `expected ${expect.finish_reason}, got ${result.finishReason}`,
    },
  ];
  const verified = expect.verified ?? (expect.finish_reason === 'completed' ? true : undefined);
  if (verified !== undefined)
    checks.push({
      name: 'verified',
      passed: (result.verified ?? false) === verified,
      detail: `expected Verify to ${verified ? 'pass' : 'fail'}, it ${result.verified ? 'passed' : 'did not pass'}`,
    });
  for (const check of expect.checks) {
    const outcome = await deliverableCheck(join(root, 'progress'), check);
    checks.push({ name: `${check.type} ${check.path}`, passed: outcome.passed, detail: outcome.evidence });
  }
  checks.push(...budgetChecks(expect, metrics));
  if (expect.approvals !== undefined)
    checks.push({
      name: 'approvals',
      passed: metrics.approvals === expect.approvals,
      detail: `expected ${expect.approvals} approval request(s), got ${metrics.approvals}`,
    });
  return checks;
}

function budgetChecks({ budgets }: Expectation, metrics: RunMetrics): Check[] {
  const limits: Array<[string, number | undefined, number | null, string]> = [
    ['max_tokens', budgets.max_tokens, metrics.totalTokens, 'tokens'],
    ['max_cost_usd', budgets.max_cost_usd, metrics.costUsd, 'USD'],
    ['max_steps', budgets.max_steps, metrics.steps, 'steps'],
    ['max_wall_ms', budgets.max_wall_ms, metrics.wallMs, 'ms'],
  ];
  return limits
    .filter(([, limit]) => limit !== undefined)
    .map(([name, limit, value, unit]) => ({
      name,
      passed: value !== null && value <= (limit as number),
      detail:
        value === null
          ? `the cost is unknown (a model has no price), so it cannot be held to ${limit} ${unit}`
          : `${value} ${unit}, limit ${limit}`,
    }));
}

// The runner's own file checks (read through the path guard, inside progress/ only), and `matches` read the same way.
async function deliverableCheck(progress: string, check: DeliverableCheck): Promise<CheckResult> {
  if (check.type !== 'matches') return runFileCheck(progress, check);
  const exists = await runFileCheck(progress, { type: 'file_exists', path: check.path });
  if (!exists.passed) return exists;
  const roots = [{ label: 'progress', path: progress }];
  const shown = exists.artifacts[0] ?? check.path;
  let text: string;
  try {
    text = (await readFileInScope(roots, check.path, { maxBytes: VERIFY_MAX_FILE_BYTES })).toString('utf8');
  } catch (error) {
    return { passed: false, evidence: `${shown} could not be read: ${errorMessage(error)}`, artifacts: [] };
  }
  const found = linearRegExp(check.pattern, '').test(text);
  return {
    passed: found,
    evidence: `${shown} ${found ? 'matches' : 'does not match'} /${check.pattern}/`,
    artifacts: [],
  };
}
