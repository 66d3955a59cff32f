import type { TaskDetail } from '../../api/types.ts';
import { formatAge } from '../../lib/format.ts';
import { ApprovalCard } from '../approval/approval-card.tsx';
import { Badge } from '../badge.tsx';
import { Card } from '../card.tsx';

/** This task's approvals: open ones (and expired ones) as decidable cards, decided ones as a short history. */
export function TaskApprovals({ task, now, onDecided }: { task: TaskDetail; now: number; onDecided: () => void }) {
  const open = task.approvals.filter((item) => item.state !== 'decided');
  const decided = task.approvals.filter((item) => item.state === 'decided');
  return (
    <>
      {open.length > 0 ? (
        <div class="approval-list" data-testid="task-approvals">
          {open.map((item) => (
            <ApprovalCard
              key={item.request.id}
              request={item.request}
              state={item.state}
              plan={item.request.type === 'plan' ? (task.plans.find((plan) => plan.signature === item.request.plan_sig)?.plan ?? null) : null}
              now={now}
              onDecided={onDecided}
            />
          ))}
        </div>
      ) : null}
      {decided.length > 0 ? (
        <Card title="Decisions" flush testId="task-decisions">
          <ul class="list">
            {decided.map(({ request, decision }) => (
              <li class="list-item" key={request.id} data-request-id={request.id}>
                <Badge tone={decision?.decision === 'approved' ? 'green' : 'red'}>{decision?.decision ?? 'decided'}</Badge>
                <div class="list-main">
                  <div>{request.type === 'plan' ? 'Plan' : <code class="mono">{request.tool_name}</code>}</div>
                  <div class="small muted">
                    {decision ? (
                      <>
                        by <code class="mono">{decision.approved_by}</code> {formatAge(decision.timestamp, now)}
                        {decision.reason ? ` — ${decision.reason}` : ''}
                      </>
                    ) : null}
                  </div>
                </div>
                <code class="mono small muted hide-sm">{request.id}</code>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
    </>
  );
}
