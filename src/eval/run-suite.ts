import { join } from 'node:path';
import { roundUsd } from '../core/model-prices.ts';
import { NO_OVERHEAD } from './judge.ts';
import { sumOverheads } from './overhead.ts';
import { type CaseReport, EVAL_REPORT_FORMAT, type EvalReport, OVERHEAD_GOAL, type RunMetrics } from './report.ts';
import { type CaseRunSetup, runCase } from './run-case.ts';
import type { EvalCase, EvalSuite } from './suite.ts';

/** What {@link runSuite} needs besides the suite. */
export type RunSuiteOptions = {
  /** Where each case's copy is made, as `<workDir>/<case name>/`. */
  workDir: string;
  /** The model, runner options and spec of one case's copy. */
  setup: (evalCase: EvalCase, root: string) => Promise<CaseRunSetup>;
  /** How many cases run at once. @default 2 */
  concurrency?: number;
  /** Aborting it stops the running cases (`cancelled`) and starts no more (`skipped`); the report says so. */
  signal?: AbortSignal;
  /** How the report names the suite and the model. */
  names: { suite: string; model: string };
  /** Called as each case ends. */
  onCase?: (report: CaseReport) => void;
  deps?: { now?: () => Date };
};

/** Runs every case of a suite, at most `concurrency` at once, and reports each and the totals (`agency.eval.v1`). */
export async function runSuite(suite: EvalSuite, options: RunSuiteOptions): Promise<EvalReport> {
  const { workDir, setup, concurrency = 2, signal, names, onCase } = options;
  const now = options.deps?.now ?? (() => new Date());
  const startedAt = now().toISOString();
  const reports: Array<CaseReport | undefined> = suite.cases.map(() => undefined);
  let next = 0;
  const worker = async () => {
    while (next < suite.cases.length && !signal?.aborted) {
      const index = next++;
      const evalCase = suite.cases[index] as EvalCase;
      const report = await runCase(evalCase, {
        root: join(workDir, evalCase.name),
        setup: (root) => setup(evalCase, root),
        ...(signal ? { signal } : {}),
      });
      reports[index] = report;
      onCase?.(report);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, suite.cases.length)) }, worker));
  const cases = suite.cases.map((evalCase, index) => reports[index] ?? skipped(evalCase.name));
  return {
    format: EVAL_REPORT_FORMAT,
    suite: names.suite,
    model: names.model,
    startedAt,
    completedAt: now().toISOString(),
    interrupted: signal?.aborted === true,
    overheadGoal: OVERHEAD_GOAL,
    totals: totalsOf(cases),
    cases,
  };
}

function skipped(name: string): CaseReport {
  return {
    name,
    status: 'skipped',
    finishReason: null,
    verified: null,
    error: 'not run: the eval was interrupted before this case started',
    checks: [],
    metrics: sumMetrics([]),
    overhead: NO_OVERHEAD,
  };
}

function totalsOf(cases: CaseReport[]): EvalReport['totals'] {
  const passed = cases.filter((item) => item.status === 'passed').length;
  const skippedCount = cases.filter((item) => item.status === 'skipped').length;
  const ran = cases.length - skippedCount;
  return {
    cases: cases.length,
    passed,
    failed: ran - passed,
    skipped: skippedCount,
    successRate: ran === 0 ? 0 : passed / ran,
    metrics: sumMetrics(cases.filter((item) => item.status !== 'skipped').map((item) => item.metrics)),
    overhead: sumOverheads(cases.map((item) => item.overhead)),
  };
}

function sumMetrics(all: RunMetrics[]): RunMetrics {
  const sum: RunMetrics = { ...ZERO_METRICS };
  for (const metrics of all) {
    for (const key of SUMMED) sum[key] += metrics[key];
    // One unpriced case makes the total unknown, as a run's usage does (core/usage.ts).
    sum.costUsd = sum.costUsd === null || metrics.costUsd === null ? null : roundUsd(sum.costUsd + metrics.costUsd);
  }
  return sum;
}

const ZERO_METRICS: RunMetrics = {
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  costUsd: 0,
  steps: 0,
  modelCalls: 0,
  wallMs: 0,
  approvals: 0,
};
const SUMMED = ['inputTokens', 'outputTokens', 'totalTokens', 'steps', 'modelCalls', 'wallMs', 'approvals'] as const;
