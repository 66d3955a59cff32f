import type { TaskSummary } from '../api/types.ts';
import { navigate } from '../hooks/use-location.ts';
import { timeUsedMs } from '../lib/budgets.ts';
import { formatAge, formatCost, formatDateTime, formatDuration, formatTokens } from '../lib/format.ts';
import { taskPath } from '../lib/routes.ts';
import { Link } from './link.tsx';
import { StatusBadge } from './status-badge.tsx';

/** One task in the list: the whole row opens the task. */
export function TaskRow({ task, now }: { task: TaskSummary; now: number }) {
  const href = taskPath(task.id);
  const started = task.status !== 'created' && task.status !== 'queued';
  const open = (event: MouseEvent): void => {
    if ((event.target as HTMLElement).closest('a, button')) return;
    navigate(href);
  };
  return (
    <tr class="task-row" onClick={open} data-testid="task-row" data-task-id={task.id} data-status={task.status}>
      <td class="task-cell-goal">
        <Link href={href} class="task-goal" data-testid="task-link">
          {task.goal || 'Untitled task'}
        </Link>
        <div class="mono muted small">
          {task.kind === 'workflow' ? (
            <span class="badge badge-purple" data-testid="task-kind">
              workflow
            </span>
          ) : null}{' '}
          {task.id}
        </div>
      </td>
      <td class="task-cell-status">
        <StatusBadge status={task.status} stuck={task.stuck} />
        {task.pending_approvals > 0 ? (
          <div class="small text-orange">
            {task.pending_approvals} pending approval{task.pending_approvals === 1 ? '' : 's'}
          </div>
        ) : null}
      </td>
      <td class="hide-sm">{task.phase ?? <span class="muted">—</span>}</td>
      <td class="hide-md mono small task-model" title={task.model ?? undefined}>
        {task.model ?? <span class="muted">default</span>}
      </td>
      <td class="num task-tokens">{formatTokens(task.usage?.total_tokens)}</td>
      <td class="num hide-sm">{formatCost(task.usage?.cost_usd)}</td>
      <td class="num hide-sm">{started ? formatDuration(timeUsedMs(task)) : '—'}</td>
      <td class="nowrap muted task-age" title={formatDateTime(task.created_at)}>
        {formatAge(task.created_at, now)}
      </td>
    </tr>
  );
}
