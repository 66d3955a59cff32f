import type { TaskDetail } from '../../api/types.ts';
import { formatAge } from '../../lib/format.ts';
import { Badge } from '../badge.tsx';
import { Card } from '../card.tsx';

/** The decisions already made on this task's requests: what, who, when and why. */
export function TaskDecisions({ task, now }: { task: TaskDetail; now: number }) {
  const decided = task.approvals.filter((item) => item.state === 'decided');
  if (decided.length === 0) return null;
  return (
    <Card title="Decisions" flush testId="task-decisions">
      <ul class="list">
        {decided.map(({ request, decision }) => (
          <li class="list-item" key={request.id} data-request-id={request.id} title={request.id}>
            <Badge tone={decision?.decision === 'approved' ? 'green' : 'red'}>{decision?.decision ?? 'decided'}</Badge>
            <div class="list-main">
              <div>{request.type === 'plan' ? 'Plan' : <code class="mono">{request.tool_name}</code>}</div>
              {decision ? (
                <div class="small muted">
                  by <code class="mono">{decision.approved_by}</code> {formatAge(decision.timestamp, now)}
                  {decision.reason ? ` — ${decision.reason}` : ''}
                </div>
              ) : null}
            </div>
          </li>
        ))}
      </ul>
    </Card>
  );
}
