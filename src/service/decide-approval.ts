import type { DecisionRequest } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { isId } from '../core/ids.ts';
import { createFileBroker } from '../task/approvals/file-broker.ts';
import type { ApprovalDecision } from '../task/contracts/approvals.ts';
import { decideRequest, holdsRequest, inboxItemsOf } from './approval-inbox.ts';
import { type ServiceCore, taskIdsOf, taskRootOf } from './service-core.ts';
import { readTaskRecord, type TaskRecord } from './task-records.ts';
import type { Principal } from './task-service.ts';

/**
 * Records a decision on a request, found in the task the body names or in any task, signed with the caller's name.
 * @throws AgencyError `approval_not_found` when no task holds the request.
 */
export async function decideApproval(
  core: ServiceCore,
  requestId: string,
  body: DecisionRequest,
  by: Principal,
): Promise<ApprovalDecision> {
  if (!isId(requestId, 'req'))
    throw new AgencyError(
      'invalid_argument',
      `"${String(requestId).slice(0, 80)}" is not a request id (req_ and a ULID)`,
      {
        details: { field: 'id' },
      },
    );
  for (const id of body.task_id ? [body.task_id] : await taskIdsOf(core)) {
    // Searching every task, a root the service refuses to read is passed over; named, it answers why.
    const record = await readTaskRecord(taskRootOf(core, id), id).catch((error: unknown) => {
      if (body.task_id) throw error;
      return undefined;
    });
    if (!record || !(await holdsRequest(record, requestId))) continue;
    const pending = (await inboxItemsOf(record, '', core.now())).find((item) => item.request.id === requestId);
    const entry = pending?.request ?? (await decidedRequest(record, requestId));
    const decision = await decideRequest(record, entry, body, by.name, core.now());
    core.logger.info(
      { task_id: id, request_id: requestId, decision: decision.decision, by: by.name },
      'decision recorded',
    );
    return decision;
  }
  throw new AgencyError(
    'approval_not_found',
    body.task_id ? `Task ${body.task_id} has no request ${requestId}` : `No task has a request ${requestId}`,
    { details: { request_id: requestId } },
  );
}

// A request already decided is no longer pending: it is read from its file, and deciding it again agrees or refuses.
async function decidedRequest(record: TaskRecord, requestId: string) {
  const entry = await createFileBroker(record.paths.progress, { mode: 'file' }).get(requestId);
  if (!entry.request)
    throw new AgencyError('approval_not_found', `Request ${requestId} cannot be read`, {
      details: { request_id: requestId },
    });
  return entry.request;
}
