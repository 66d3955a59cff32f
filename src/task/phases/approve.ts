import { askApproval } from '../approval-flow.ts';
import type { PhaseContext } from '../loop.ts';
import { planApprovalOf } from '../plan-policy.ts';
import { runStop } from '../run-stop.ts';
import type { SignedPlan } from './plan.ts';
import { describeChanges } from './plan-changes.ts';

/**
 * Approval: when the run's policy requires it (a rule such as the spec's `require_plan` or the operator's
 * `requirePlanApproval()`), asks for the plan to be approved and waits. A denial stops the run with
 * `approval.denied`, expiry with `approval.expired`. When no rule requires it, the plan is approved as written, by
 * `policy`. The approved signature is what Act's gate checks the plan against.
 */
export async function approvePlan(context: PhaseContext, signed: SignedPlan): Promise<void> {
  const decision = await context.step(`approve-plan-v${signed.version}`, 'approval', async (id) => {
    const { session } = context;
    const required = signed.approval === undefined ? planApprovalOf(context.policy, signed.plan) : signed.approval;
    if (!required) return { decision: 'approved', by: 'policy' };
    const outcome = await askApproval(session, id, {
      type: 'plan',
      planPath: signed.path,
      planSig: signed.signature,
      rationale:
        `Plan v${signed.version} for: ${signed.plan.goal}` +
        `${signed.changes ? ` — ${describeChanges(signed.changes)}` : ''}. ${required.ruleId}: ${required.reason}`,
      changes: signed.changes,
    });
    // An expiry ends the step unfinished, so a resumed run asks again with a new request.
    if (outcome.decision === 'expired')
      throw runStop('approval.expired', `The approval request for plan v${signed.version} expired`);
    return { decision: outcome.decision, by: outcome.decidedBy };
  });
  if (decision.decision === 'denied')
    throw runStop('approval.denied', `Plan v${signed.version} was denied by ${decision.by}`);
  context.session.fold.approvedPlanSig = signed.signature;
  context.session.update({ approved_plan_sig: signed.signature });
}
