import { useState } from 'preact/hooks';
import type { ApprovalDecision, ApprovalRequest, Plan } from '../../api/types.ts';
import { formatAge, formatDateTime } from '../../lib/format.ts';
import { taskPath } from '../../lib/routes.ts';
import { Badge } from '../badge.tsx';
import { Digest } from '../digest.tsx';
import { Link } from '../link.tsx';
import { PlanChanges } from '../plan/plan-changes.tsx';
import { PlanView } from '../plan/plan-view.tsx';
import { APPROVAL_STATE_TONES, blockedReason, type ApprovalState } from './approval-state.ts';
import { DecisionForm } from './decision-form.tsx';
import { ToolRequest } from './tool-request.tsx';

type ApprovalCardProps = {
  request: ApprovalRequest;
  state: ApprovalState;
  /** The plan under review, for a plan request. */
  plan: Plan | null;
  /** The task's goal, shown with a link to it in the inbox. */
  goal?: string;
  decision?: ApprovalDecision | null;
  now: number;
  onDecided: (decision: 'approved' | 'denied') => void;
};

/** One approval request: what is asked, why, until when, and the decision controls. */
export function ApprovalCard({ request, state, plan, goal, decision, now, onDecided }: ApprovalCardProps) {
  const [decided, setDecided] = useState<'approved' | 'denied' | undefined>(undefined);
  const [showPlan, setShowPlan] = useState(request.type === 'plan' && !request.changes && state === 'pending');
  const shownState: ApprovalState = decided ? 'decided' : state;
  return (
    <article
      class={`approval approval-${shownState}`}
      data-testid="approval"
      data-request-id={request.id}
      data-state={shownState}
      data-type={request.type}
    >
      <header class="approval-header">
        <div class="approval-title">
          <Badge tone={request.type === 'plan' ? 'purple' : 'cyan'}>
            {request.type === 'plan' ? 'Plan' : 'Tool call'}
          </Badge>
          <h3>
            {request.type === 'plan' ? (
              'Approve the plan'
            ) : (
              <>
                Run <code class="mono">{request.tool_name}</code>
              </>
            )}
          </h3>
          <Badge
            tone={decided === 'denied' ? 'red' : APPROVAL_STATE_TONES[shownState]}
            testId={`approval-state-${request.id}`}
          >
            {decided ?? decision?.decision ?? shownState}
          </Badge>
        </div>
        <div class="approval-meta small muted">
          <code class="mono">{request.id}</code>
          <span>·</span>
          {goal !== undefined ? (
            <Link href={taskPath(request.task_id)} data-testid="approval-task-link">
              {goal || request.task_id}
            </Link>
          ) : null}
          {goal !== undefined ? <span>·</span> : null}
          <span title={formatDateTime(request.created_at)}>asked {formatAge(request.created_at, now)}</span>
          <span>·</span>
          <span title={formatDateTime(request.expires_at)}>
            {Date.parse(request.expires_at) > now
              ? `expires ${formatAge(request.expires_at, now)}`
              : `expired ${formatAge(request.expires_at, now)}`}
          </span>
        </div>
      </header>
      <div class="approval-body">
        {request.rationale ? <p class="approval-rationale">{request.rationale}</p> : null}
        {request.type === 'plan' ? (
          <>
            <div class="kv">
              <span class="label">Plan signature</span>
              <Digest value={request.plan_sig} full testId="approval-plan-sig" />
            </div>
            {request.changes ? (
              <PlanChanges changes={request.changes} origin={request.changes.origin} testId="approval-changes" />
            ) : null}
            {plan ? (
              <>
                <button
                  type="button"
                  class="btn btn-sm btn-ghost"
                  onClick={() => setShowPlan(!showPlan)}
                  data-testid={`approval-toggle-plan-${request.id}`}
                >
                  {showPlan ? 'Hide the plan' : 'Show the plan'}
                </button>
                {showPlan ? <PlanView plan={plan} testId="approval-plan" /> : null}
              </>
            ) : null}
          </>
        ) : (
          <ToolRequest toolName={request.tool_name} args={request.tool_args} argsDigest={request.args_digest} />
        )}
        {decision ? (
          <div class="small muted" data-testid="approval-decision">
            {decision.decision} by <code class="mono">{decision.approved_by}</code> {formatAge(decision.timestamp, now)}
            {decision.reason ? `: ${decision.reason}` : ''}
          </div>
        ) : null}
      </div>
      {decided || state === 'decided' ? null : (
        <footer class="approval-footer">
          <DecisionForm
            requestId={request.id}
            taskId={request.task_id}
            blocked={blockedReason(state, request.expires_at)}
            onDecided={(value) => {
              setDecided(value);
              onDecided(value);
            }}
          />
        </footer>
      )}
    </article>
  );
}
