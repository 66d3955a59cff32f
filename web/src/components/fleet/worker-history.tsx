import { useState } from 'preact/hooks';
import { fleetApi } from '../../api/client.ts';
import { useResource } from '../../hooks/use-resource.ts';
import { taskStateLabel, taskTone } from '../../lib/fleet.ts';
import { formatDateTime, formatDuration } from '../../lib/format.ts';
import { Badge } from '../badge.tsx';
import { ErrorAlert } from '../error-alert.tsx';
import { Pager } from '../pager.tsx';

const LIMIT = 5;

type HistoryProps = {
  worker: string;
  /** Changes whenever the worker's task changes, so an open history shows it. */
  refreshKey: string;
  /** Follows a task in the monitor, e.g. an idle session to continue or end. */
  onOpen: (taskId: string) => void;
};

/** A worker's history, newest first, paged; loaded only while it is expanded. */
export function WorkerHistory({ worker, refreshKey, onOpen }: HistoryProps) {
  const [open, setOpen] = useState(false);
  return (
    <details class="fleet-history" onToggle={(event) => setOpen(event.currentTarget.open)} data-testid="fleet-history">
      <summary class="small" data-testid="fleet-history-toggle">
        History
      </summary>
      {open ? <HistoryPages worker={worker} refreshKey={refreshKey} onOpen={onOpen} /> : null}
    </details>
  );
}

function HistoryPages({ worker, refreshKey, onOpen }: HistoryProps) {
  const [page, setPage] = useState(1);
  const history = useResource(() => fleetApi.history(worker, page, LIMIT), `${worker}:${page}:${refreshKey}`);
  const data = history.data;
  return (
    <div class="fleet-history-body">
      <ErrorAlert message={history.error} onRetry={history.reload} testId="fleet-history-error" />
      {data && data.items.length === 0 ? <p class="small muted">No tasks yet.</p> : null}
      <ul class="fleet-history-list">
        {data?.items.map((item) => (
          <li key={item.task_id} class="fleet-history-item" data-testid="fleet-history-item" data-state={item.state}>
            <Badge tone={taskTone(item.state)}>{taskStateLabel(item.state)}</Badge>
            <span class="fleet-history-prompt" title={item.prompt_preview}>
              {item.prompt_preview}
            </span>
            <span class="small muted">
              {item.started_at ? formatDateTime(item.started_at) : 'not started'} ·{' '}
              {formatDuration(item.duration_seconds === null ? null : item.duration_seconds * 1000)}
            </span>
            <button
              type="button"
              class="btn btn-sm btn-ghost"
              onClick={() => onOpen(item.task_id)}
              data-testid="fleet-history-open"
            >
              Open
            </button>
          </li>
        ))}
      </ul>
      {data ? (
        <Pager
          page={page}
          hasPrevious={page > 1}
          hasNext={page * LIMIT < data.total}
          onPrevious={() => setPage(page - 1)}
          onNext={() => setPage(page + 1)}
          testId="fleet-history"
        />
      ) : null}
    </div>
  );
}
