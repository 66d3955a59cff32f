import { api } from '../../api/client.ts';
import { useResource } from '../../hooks/use-resource.ts';
import { humanize } from '../../lib/format.ts';
import { Badge } from '../badge.tsx';
import { Card } from '../card.tsx';
import { ErrorAlert } from '../error-alert.tsx';

/** The finished run's result: why it ended, whether it verified, its output, warnings and error. */
export function ResultCard({ taskId, lastSeq }: { taskId: string; lastSeq: number }) {
  // Keyed by the last seq, so a resumed run that finishes again is read again.
  const result = useResource(() => api.result(taskId, 'summary'), `${taskId}|${lastSeq}`);
  const data = result.data;
  return (
    <Card title="Result" testId="result">
      <ErrorAlert message={result.error} onRetry={result.reload} />
      {data ? (
        <div class="result">
          <div class="result-badges">
            <Badge tone={data.finish_reason === 'completed' ? 'green' : 'red'} testId="result-finish-reason">
              {humanize(data.finish_reason)}
            </Badge>
            {data.verified !== undefined ? (
              <Badge tone={data.verified ? 'green' : 'yellow'}>{data.verified ? 'verified' : 'not verified'}</Badge>
            ) : null}
          </div>
          {data.error ? (
            <div class="event-error">
              <code class="mono">{data.error.code}</code> {data.error.message}
            </div>
          ) : null}
          {data.output_text ? (
            <div class="result-output" data-testid="result-output">
              {data.output_text}
            </div>
          ) : null}
          {data.warnings && data.warnings.length > 0 ? (
            <ul class="warnings small">
              {data.warnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </Card>
  );
}
