import type { TaskDetail } from '../../api/types.ts';
import { ApprovalCard } from '../approval/approval-card.tsx';

/** This task's open approvals (and expired ones, marked) as cards with the decision controls. */
export function TaskApprovals({ task, now, onDecided }: { task: TaskDetail; now: number; onDecided: () => void }) {
  const open = task.approvals.filter((item) => item.state !== 'decided');
  if (open.length === 0) return null;
  return (
    <div class="approval-list" data-testid="task-approvals">
      {open.map((item) => (
        <ApprovalCard
          key={item.request.id}
          request={item.request}
          state={item.state}
          plan={
            item.request.type === 'plan'
              ? (task.plans.find((plan) => plan.signature === item.request.plan_sig)?.plan ?? null)
              : null
          }
          now={now}
          onDecided={onDecided}
        />
      ))}
    </div>
  );
}
