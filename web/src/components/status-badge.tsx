import type { StuckReason, TaskStatus } from '../api/types.ts';
import { statusLabel, statusTone, stuckLabel } from '../lib/status.ts';
import { Badge } from './badge.tsx';

/** A task's status, with a dot that pulses while it runs, and why it is stuck when it is. */
export function StatusBadge({ status, stuck }: { status: TaskStatus; stuck?: StuckReason | null }) {
  return (
    <span class="status">
      <span class={`badge badge-${statusTone(status)} status-badge`} data-testid="task-status" data-status={status}>
        <span class={`status-dot${status === 'running' ? ' status-dot-live' : ''}`} />
        {statusLabel(status)}
      </span>
      {stuck && stuck !== status ? (
        <Badge tone="red" title="This task needs attention" testId="task-stuck">
          {stuckLabel(stuck)}
        </Badge>
      ) : null}
    </span>
  );
}
