import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { EventFrame } from '../api/types.ts';
import { ErrorAlert } from '../components/error-alert.tsx';
import { Link } from '../components/link.tsx';
import { Notice } from '../components/notice.tsx';
import { PageHeader } from '../components/page-header.tsx';
import { PlanCard } from '../components/plan/plan-card.tsx';
import { Loading } from '../components/spinner.tsx';
import { BriefCard } from '../components/task/brief-card.tsx';
import { BudgetBars } from '../components/task/budget-bars.tsx';
import { Deliverables } from '../components/task/deliverables.tsx';
import { ResultCard } from '../components/task/result-card.tsx';
import { TaskActions } from '../components/task/task-actions.tsx';
import { TaskApprovals } from '../components/task/task-approvals.tsx';
import { TaskDecisions } from '../components/task/task-decisions.tsx';
import { TaskStats } from '../components/task/task-stats.tsx';
import { VerifyReports } from '../components/task/verify-reports.tsx';
import { Timeline } from '../components/timeline/timeline.tsx';
import { useEventStream } from '../hooks/use-event-stream.ts';
import { useNow } from '../hooks/use-now.ts';
import { useResource } from '../hooks/use-resource.ts';
import { isActive } from '../lib/status.ts';

// Everything but usage and checkpoints changes what the page shows beside the timeline.
const REFRESHING = (frame: EventFrame): boolean => frame.type !== 'usage.delta' && frame.type !== 'step.checkpoint';

/** One task: the live timeline, its plan and diffs, budgets, verification, deliverables, approvals and actions. */
export function TaskPage({ id, onChanged }: { id: string; onChanged: () => void }) {
  const [generation, setGeneration] = useState(0);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [actionError, setActionError] = useState<string | undefined>(undefined);
  const now = useNow();
  const task = useResource(() => api.task(id), id, { pollMs: 10_000 });
  const reloadSoon = useDebounced(task.reload, 250);
  const stream = useEventStream(id, {
    generation,
    onFrames: (frames) => {
      if (frames.some(REFRESHING)) reloadSoon();
    },
  });
  useEffect(() => {
    if (stream.state === 'ended') task.reload();
  }, [stream.state]);

  const detail = task.data;
  if (!detail) {
    return (
      <div class="page" data-testid="task-page">
        <div class="breadcrumb">
          <Link href="/">Tasks</Link> / <code class="mono">{id}</code>
        </div>
        <ErrorAlert message={task.error} onRetry={task.reload} />
        {task.loading ? <Loading label="Loading the task…" /> : null}
      </div>
    );
  }
  const finished = !isActive(detail.status) && detail.status !== 'interrupted';
  // A workflow run is shown here, but stopped, resumed and answered by the code that defines it.
  const workflow = detail.kind === 'workflow';

  return (
    <div class="page" data-testid="task-page" data-task-id={id} data-status={detail.status}>
      <PageHeader
        pretitle={
          <span class="breadcrumb">
            <Link href="/" data-testid="task-back">
              Tasks
            </Link>{' '}
            /{' '}
            <code class="mono" data-testid="task-id">
              {id}
            </code>
          </span>
        }
        title={
          <span data-testid="task-goal" data-kind={detail.kind}>
            {workflow ? <span class="badge badge-purple task-kind">workflow</span> : null}
            {detail.goal || 'Untitled task'}
          </span>
        }
        actions={
          workflow ? undefined : (
            <TaskActions
              taskId={id}
              status={detail.status}
              onDone={(message, action) => {
                setActionError(undefined);
                setNotice(message);
                if (action === 'resume') setGeneration((value) => value + 1);
                task.reload();
                onChanged();
              }}
              onError={(message) => {
                setNotice(undefined);
                setActionError(message);
              }}
            />
          )
        }
      />
      <Notice message={notice} testId="task-notice" />
      <ErrorAlert message={actionError} testId="task-action-error" />
      {task.error ? <ErrorAlert message={`Could not refresh the task: ${task.error}`} onRetry={task.reload} /> : null}
      <TaskStats task={detail} now={now} />
      <TaskApprovals
        task={detail}
        now={now}
        onDecided={() => {
          task.reload();
          onChanged();
        }}
      />
      <div class="task-grid">
        <div class="task-main">
          <Timeline frames={stream.frames} state={stream.state} />
          <PlanCard plans={detail.plans} />
          <VerifyReports reports={detail.verify} />
        </div>
        <aside class="task-side">
          <BudgetBars budgets={detail.budgets} usage={detail.usage} />
          {finished && !workflow ? <ResultCard taskId={id} lastSeq={detail.last_seq} /> : null}
          <Deliverables taskId={id} deliverables={detail.deliverables} />
          <TaskDecisions task={detail} now={now} />
          <BriefCard task={detail} />
        </aside>
      </div>
    </div>
  );
}

function useDebounced(action: () => void, waitMs: number): () => void {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(action);
  latest.current = action;
  useEffect(() => () => clearTimeout(timer.current), []);
  return () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => latest.current(), waitMs);
  };
}
