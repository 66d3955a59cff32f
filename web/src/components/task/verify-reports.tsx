import type { VerifyReport } from '../../api/types.ts';
import { formatDateTime } from '../../lib/format.ts';
import { Badge } from '../badge.tsx';
import { Card } from '../card.tsx';
import { Digest } from '../digest.tsx';

/** Verification attempts, newest first: each criterion, whether it passed, how it was checked, and the evidence. */
export function VerifyReports({ reports }: { reports: readonly VerifyReport[] }) {
  if (reports.length === 0) return null;
  const ordered = [...reports].sort((a, b) => b.attempt - a.attempt);
  return (
    <Card title="Verification" subtitle={`${reports.length} attempt${reports.length === 1 ? '' : 's'}`} testId="verify">
      {ordered.map((report) => (
        <div
          class="verify-report"
          key={report.attempt}
          data-testid="verify-report"
          data-attempt={report.attempt}
          data-passed={String(report.passed)}
        >
          <div class="verify-head">
            <Badge tone={report.passed ? 'green' : 'red'}>{report.passed ? 'passed' : 'failed'}</Badge>
            <strong>Attempt {report.attempt}</strong>
            <span class="small muted">{formatDateTime(report.created_at)}</span>
            <span class="small muted">
              plan <Digest value={report.plan_sig} />
            </span>
          </div>
          <ul class="criteria">
            {report.criteria.map((criterion) => (
              <li key={criterion.id} class={criterion.passed ? 'criterion criterion-pass' : 'criterion criterion-fail'}>
                <span class="criterion-mark" aria-label={criterion.passed ? 'passed' : 'failed'}>
                  {criterion.passed ? '✓' : '✗'}
                </span>
                <div>
                  <div>
                    <code class="mono plan-id">{criterion.id}</code> {criterion.criterion}
                  </div>
                  <div class="small muted">
                    {criterion.methods.join(', ')}
                    {criterion.evidence ? ` — ${criterion.evidence}` : ''}
                  </div>
                  {criterion.artifacts.length > 0 ? (
                    <div class="small">
                      {criterion.artifacts.map((artifact) => (
                        <code key={artifact} class="mono artifact">
                          {artifact}
                        </code>
                      ))}
                    </div>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </Card>
  );
}
