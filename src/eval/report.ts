import { z } from 'zod';
import { STOP_REASONS } from '../task/contracts/state.ts';

/** The format tag of an eval report (`agency eval --json`). */
export const EVAL_REPORT_FORMAT = 'agency.eval.v1';

/** The framework overhead agency aims to stay under, as a share of the transcript. */
export const OVERHEAD_GOAL = 0.05;

const count = z.number().int().nonnegative();

/** What a run spent. `costUsd` is null when a model's price is unknown. */
export const runMetricsSchema = z.object({
  inputTokens: count,
  outputTokens: count,
  totalTokens: count,
  costUsd: z.number().nonnegative().nullable(),
  steps: count,
  modelCalls: count,
  wallMs: z.number().nonnegative(),
  approvals: count,
});

/** Framework overhead: the transcript's tokens by origin and agency's share (docs/evals.md). */
export const overheadSchema = z.object({
  parts: z.object({ framework: count, brief: count, tools: count, content: count }),
  transcriptTokens: count,
  share: z.number().min(0).max(1),
});

/** One expectation of `expect.yaml`, judged. */
export const checkReportSchema = z.object({ name: z.string(), passed: z.boolean(), detail: z.string() });

/** One case of a report. `skipped`: never started (the eval was interrupted first). */
export const caseReportSchema = z.object({
  name: z.string(),
  status: z.enum(['passed', 'failed', 'skipped']),
  finishReason: z.enum(STOP_REASONS).nullable(),
  verified: z.boolean().nullable(),
  error: z.string().nullable(),
  checks: z.array(checkReportSchema),
  metrics: runMetricsSchema,
  overhead: overheadSchema,
});

/** The whole report: `agency eval --json out.json` writes it, `--compare` reads one back. */
export const evalReportSchema = z.object({
  format: z.literal(EVAL_REPORT_FORMAT),
  suite: z.string(),
  model: z.string(),
  startedAt: z.string(),
  completedAt: z.string(),
  /** True when Ctrl-C (or SIGTERM) stopped the eval: the cases not finished are `skipped` or `cancelled`. */
  interrupted: z.boolean(),
  overheadGoal: z.number(),
  totals: z.object({
    cases: count,
    passed: count,
    failed: count,
    skipped: count,
    successRate: z.number().min(0).max(1),
    metrics: runMetricsSchema,
    overhead: overheadSchema,
  }),
  cases: z.array(caseReportSchema),
});

/** A judged case. */
export type CaseReport = z.infer<typeof caseReportSchema>;
/** What a run spent. */
export type RunMetrics = z.infer<typeof runMetricsSchema>;
/** An eval report (`agency.eval.v1`). */
export type EvalReport = z.infer<typeof evalReportSchema>;

/** A share as a percentage with one decimal, as the reports print it: `0.136` is `13.6%`. */
export function formatShare(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/** US dollars to four decimals, as the reports print them, or `unknown` without a price. */
export function formatUsd(usd: number | null): string {
  return usd === null ? 'unknown' : `$${usd.toFixed(4)}`;
}
