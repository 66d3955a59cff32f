import { AgencyError } from '../core/errors.ts';
import type { Policy } from '../policy/create-policy.ts';
import { type Plan, planSchema } from './contracts/plan.ts';
import { journalAudit } from './governed-policy.ts';
import { runStop } from './run-stop.ts';
import type { Session } from './session.ts';

/** The rule that requires a plan to be approved before Act, and why. */
export type PlanApproval = { ruleId: string; reason: string };

/** What the run's policy made of a proposed plan. */
export type PlanVerdict = { plan: Plan; approval: PlanApproval | null };

/**
 * Puts a proposed plan through the run's policy (`{ kind: 'plan' }`), before it is signed. A denial stops the run
 * with `approval.denied`; changes are applied, so the plan signed, approved and acted on is the changed one; and
 * when a rule requires approval, `approval` names it. Denials and changes are journaled as `policy.blocked` and
 * `policy.modified` under `step`.
 *
 * @throws RunStop `approval.denied` naming the rule that denied the plan.
 * @throws AgencyError `plan_invalid` when rules changed the plan into one that is not a valid `plan.v1`.
 * @example
 * const { plan, approval } = decidePlan(session, policy, proposed, '0004-write-plan');
 */
export function decidePlan(session: Session, policy: Policy, proposed: Plan, step: string): PlanVerdict {
  const request = { kind: 'plan', plan: proposed } as const;
  const approval = planApprovalOf(policy, proposed);
  // The plan as it goes ahead once approved: approval verdicts set aside, denials still win, changes applied. The
  // human is then asked about exactly that plan, so the changes are made (and audited) before the request.
  const settled = policy.evaluate(request, { approved: true, onAudit: journalAudit(session, step) });
  if (settled.outcome === 'deny')
    throw runStop('approval.denied', `The plan was denied by policy rule "${settled.ruleId}": ${settled.reason}`);
  if (settled.outcome !== 'modify') return { plan: proposed, approval };
  const changed = planSchema.safeParse(settled.patch);
  if (!changed.success) {
    const problems = changed.error.issues.map((issue) => `"${issue.path.map(String).join('.')}" ${issue.message}`);
    throw new AgencyError(
      'plan_invalid',
      `Policy rule(s) ${settled.modifiedBy.join(', ')} changed the plan into one that is not a valid plan.v1: ${problems.join('; ')}`,
    );
  }
  return { plan: changed.data, approval };
}

/**
 * The rule that requires approval of `plan`, or null, without side effects (a dry run: nothing is audited).
 *
 * @example
 * planApprovalOf(strictPolicy(), plan) // { ruleId: 'plan-approval', reason: 'plans require approval' }
 */
export function planApprovalOf(policy: Policy, plan: Plan): PlanApproval | null {
  const probe = policy.evaluate({ kind: 'plan', plan }, { dryRun: true });
  return probe.outcome === 'require-approval' ? { ruleId: probe.ruleId, reason: probe.reason } : null;
}
