import { describe, expect, it } from 'vitest';
import { compareReports } from './compare.ts';
import { NO_OVERHEAD } from './judge.ts';
import { type CaseReport, EVAL_REPORT_FORMAT, type EvalReport, OVERHEAD_GOAL, type RunMetrics } from './report.ts';

const metrics: RunMetrics = {
  inputTokens: 900,
  outputTokens: 100,
  totalTokens: 1000,
  costUsd: 0.01,
  steps: 5,
  modelCalls: 6,
  wallMs: 2000,
  approvals: 1,
};

function item(name: string, change: Partial<RunMetrics> = {}, status: CaseReport['status'] = 'passed'): CaseReport {
  return {
    name,
    status,
    finishReason: status === 'passed' ? 'completed' : 'verify.failed',
    verified: status === 'passed',
    error: null,
    checks: [],
    metrics: { ...metrics, ...change },
    overhead: NO_OVERHEAD,
  };
}

function report(...cases: CaseReport[]): EvalReport {
  return {
    format: EVAL_REPORT_FORMAT,
    suite: 's',
    model: 'replay',
    startedAt: '',
    completedAt: '',
    interrupted: false,
    overheadGoal: OVERHEAD_GOAL,
    totals: { cases: 0, passed: 0, failed: 0, skipped: 0, successRate: 0, metrics, overhead: NO_OVERHEAD },
    cases,
  };
}

describe('compareReports', () => {
  it('finds nothing when nothing got worse, or a case is new', () => {
    expect(compareReports(report(item('a')), report(item('a', { totalTokens: 1100 }), item('new')))).toEqual([]);
  });

  it('reports a lost success, a gone case that passed, and rises past the threshold', () => {
    const found = compareReports(
      report(item('a'), item('b'), item('gone'), item('failed-before', {}, 'failed')),
      report(
        item('a', {}, 'failed'),
        item('b', { totalTokens: 1101, costUsd: 0.02, wallMs: 3100 }),
        item('failed-before', {}, 'failed'),
      ),
    );
    expect(found).toEqual([
      { case: 'a', kind: 'success_lost', detail: 'passed before, failed now' },
      { case: 'b', kind: 'tokens', detail: 'tokens 1000 → 1101 tokens (+10%)' },
      { case: 'b', kind: 'cost', detail: 'cost 0.0100 → 0.0200 USD (+100%)' },
      { case: 'b', kind: 'time', detail: 'time 2000 → 3100 ms (+55%)' },
      { case: 'gone', kind: 'success_lost', detail: 'passed before, and is no longer in the suite' },
    ]);
  });

  it('ignores a small rise in time however large in percent, an unknown cost, and takes a threshold', () => {
    const before = report(item('a', { wallMs: 10, costUsd: null }));
    expect(compareReports(before, report(item('a', { wallMs: 900, costUsd: 5 })))).toEqual([]);
    expect(
      compareReports(report(item('a')), report(item('a', { totalTokens: 1040 })), { threshold: 0.03 }),
    ).toHaveLength(1);
  });
});
