import { describe, expect, it } from 'vitest';
import { NO_OVERHEAD } from './judge.ts';
import { renderEvalHtml } from './render-html.ts';
import { EVAL_REPORT_FORMAT, type EvalReport, OVERHEAD_GOAL } from './report.ts';

const metrics = {
  inputTokens: 10,
  outputTokens: 2,
  totalTokens: 12,
  costUsd: null,
  steps: 1,
  modelCalls: 1,
  wallMs: 5,
  approvals: 0,
};
const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;

function report(text = HOSTILE): EvalReport {
  return {
    format: EVAL_REPORT_FORMAT,
    suite: text,
    model: text,
    startedAt: text,
    completedAt: '2026-11-25T00:00:00.000Z',
    interrupted: false,
    overheadGoal: OVERHEAD_GOAL,
    totals: { cases: 1, passed: 0, failed: 1, skipped: 0, successRate: 0, metrics, overhead: NO_OVERHEAD },
    cases: [
      {
        name: text,
        status: 'failed',
        finishReason: 'error',
        verified: false,
        error: `${text}</pre><script>alert(3)</script>`,
        checks: [{ name: text, passed: false, detail: `<svg onload=alert(4)>${text}` }],
        metrics,
        overhead: NO_OVERHEAD,
      },
    ],
  };
}

describe('renderEvalHtml', () => {
  it('shows hostile names, errors and check details as text, never as markup', () => {
    const html = renderEvalHtml(report(), [{ case: HOSTILE, kind: 'success_lost', detail: `<b>${HOSTILE}` }]);
    expect(html).not.toMatch(/<script|<img|<svg onload|<b><\/b>|="><|onerror=alert\(2\)>/i);
    expect(html).toContain(
      '&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#60;img src=x onerror=alert(2)&#62;&#39;',
    );
    // Forbids scripts and outside resources even if something slipped through.
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
  });

  it('draws one bar per case in each chart, with the goal line, and loads nothing from outside', () => {
    const html = renderEvalHtml(report('case-a'));
    expect(html.match(/<svg /g)).toHaveLength(3);
    // Four parts in the tokens chart, one bar in the overhead chart.
    expect(html.match(/<rect x="\d[^"]*" y="4"/g)).toHaveLength(5);
    expect(html).toContain('goal 5.0%');
    expect(html).not.toMatch(/\b(src|href)=/);
  });
});
