import type { TaskDetail } from '../../api/types.ts';
import { timeUsedMs } from '../../lib/budgets.ts';
import { formatAge, formatCost, formatDateTime, formatDuration, formatTokens } from '../../lib/format.ts';
import { StatusBadge } from '../status-badge.tsx';

/** The task at a glance: status, phase, model, spend and age. */
export function TaskStats({ task, now }: { task: TaskDetail; now: number }) {
  return (
    <div class="stats" data-testid="task-stats">
      <div class="stat">
        <div class="stat-label">Status</div>
        <StatusBadge status={task.status} stuck={task.stuck} />
      </div>
      <div class="stat">
        <div class="stat-label">Phase</div>
        <div class="stat-value" data-testid="task-phase">
          {task.phase ?? '—'}
        </div>
      </div>
      <div class="stat">
        <div class="stat-label">Model</div>
        <div class="stat-value mono small-mono" title={task.model ?? undefined}>
          {task.model ?? 'default'}
        </div>
      </div>
      <div class="stat">
        <div class="stat-label">Tokens</div>
        <div class="stat-value">{formatTokens(task.usage?.total_tokens ?? 0)}</div>
      </div>
      <div class="stat">
        <div class="stat-label">Cost</div>
        <div class="stat-value">{formatCost(task.usage?.cost_usd)}</div>
      </div>
      <div class="stat">
        <div class="stat-label">Time</div>
        <div class="stat-value">{formatDuration(timeUsedMs(task))}</div>
      </div>
      <div class="stat">
        <div class="stat-label">Created</div>
        <div class="stat-value" title={formatDateTime(task.created_at)}>
          {formatAge(task.created_at, now)}
        </div>
      </div>
    </div>
  );
}
