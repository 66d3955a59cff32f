import { join } from 'node:path';
import type { DecisionRequest, InboxItem } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { decide } from '../task/approvals/decide.ts';
import type { ApprovalDecision, ApprovalRequest } from '../task/contracts/approvals.ts';
import { type Plan, planSchema, signPlan } from '../task/contracts/plan.ts';
import { parseContractFile } from '../task/task-spec.ts';
import { pendingRequests, type TaskRecord } from './task-records.ts';

/**
 * The pending requests of one task as the inbox shows them: a plan request carries the plan under review (the
 * version whose signature it names), and is `stale` when `plan/current.json` no longer has that signature (a
 * decision would be refused); any request past `expires_at` is `expired`. Nothing here decides: an undecided
 * request stays pending until a person decides it or it expires.
 */
export async function inboxItemsOf(record: TaskRecord, goal: string, now: number): Promise<InboxItem[]> {
  const items: InboxItem[] = [];
  for (const request of await pendingRequests(record)) {
    const plan = request.type === 'plan' ? await planUnderReview(record, request.plan_sig) : null;
    const current = request.type === 'plan' ? await currentPlanSig(record) : undefined;
    const state =
      Date.parse(request.expires_at) <= now
        ? 'expired'
        : request.type === 'plan' && current !== undefined && current !== request.plan_sig
          ? 'stale'
          : 'pending';
    items.push({ task_id: record.id, goal, request, plan, state });
  }
  return items;
}

async function planUnderReview(record: TaskRecord, signature: string): Promise<Plan | null> {
  const entries = await record.files.list(record.paths.planDir);
  for (const entry of entries.filter((item) => /^\d{4}\.json$/.test(item.name)).reverse()) {
    const plan = await readPlan(record, join(record.paths.planDir, entry.name));
    if (plan && signPlan(plan) === signature) return plan;
  }
  return null;
}

/** The signature of `plan/current.json` as it is now, if it holds a valid plan. */
export async function currentPlanSig(record: TaskRecord): Promise<string | undefined> {
  const plan = await readPlan(record, record.paths.planCurrent);
  return plan ? signPlan(plan) : undefined;
}

async function readPlan(record: TaskRecord, file: string): Promise<Plan | undefined> {
  const text = await record.files.readText(file).catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return parseContractFile(file, text, planSchema);
  } catch {
    return undefined;
  }
}

/** True when the task's folder holds a request with this id. */
export async function holdsRequest(record: TaskRecord, requestId: string): Promise<boolean> {
  return record.files.exists(join(record.paths.approvalRequests, `${requestId}.json`));
}

/**
 * Records a reviewer's decision the way `agency approve` does (`decide`): bound to the request's plan signature or
 * argument digest, signed with the authenticated caller's name, and never overwriting an earlier decision.
 *
 * @throws AgencyError `approval_not_found`, `approval_invalid` (a different decision is on file), or
 * `task_state_conflict` when the request is expired or stale.
 */
export async function decideRequest(
  record: TaskRecord,
  request: ApprovalRequest,
  body: DecisionRequest,
  by: string,
  now: number,
): Promise<ApprovalDecision> {
  if (Date.parse(request.expires_at) <= now)
    throw new AgencyError('task_state_conflict', `Request ${request.id} expired at ${request.expires_at}`, {
      details: { request_id: request.id, state: 'expired' },
    });
  if (request.type === 'plan' && (await currentPlanSig(record)) !== request.plan_sig)
    throw new AgencyError(
      'task_state_conflict',
      `Request ${request.id} is stale: the plan changed since it was asked for (its signature no longer matches plan/current.json); the run asks again for the new plan`,
      { details: { request_id: request.id, state: 'stale' } },
    );
  return decide(record.paths.progress, request.id, body.decision, {
    by,
    ...(body.reason === undefined ? {} : { reason: body.reason }),
    now: () => now,
  });
}
