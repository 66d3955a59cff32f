import type { TaskAction } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { FINAL_STOP_REASONS } from '../task/contracts/state.ts';
import type { Budgets } from '../task/task-spec.ts';
import { actionOf, liveOf, recordOf, type ServiceCore } from './service-core.ts';
import { statusOf } from './task-records.ts';
import type { Principal } from './task-service.ts';
import { workflowRefusal } from './workflow-records.ts';

/**
 * Queues the resume of a run that was not finished on purpose, optionally with raised budgets.
 * @throws AgencyError `task_finished` for a run finished for good, `task_active` for one queued or running,
 * `task_state_conflict` for a workflow run (its own code resumes it).
 */
export async function resumeTask(
  core: ServiceCore,
  id: string,
  budgets: Budgets | undefined,
  by: Principal,
): Promise<TaskAction> {
  const record = await recordOf(core, id);
  if (record.workflow) throw workflowRefusal(id, record.workflow, 'resume');
  const status = statusOf(record, liveOf(core, id));
  const reason = record.state?.finish_reason ?? null;
  if (reason !== null && FINAL_STOP_REASONS.includes(reason))
    throw new AgencyError(
      'task_finished',
      `Task ${id} finished for good (${reason}): start a new task to do it again`,
      {
        details: { task_id: id, finish_reason: reason },
      },
    );
  if (status === 'queued' || core.queue.isLive(id) || record.owner?.alive)
    throw new AgencyError('task_active', `Task ${id} is ${status}; nothing to resume`, {
      details: { task_id: id, status },
    });
  if (!record.spec)
    throw new AgencyError('task_state_conflict', `Task ${id} never started: start it instead`, {
      details: { task_id: id, status },
    });
  core.queue.enqueue({ kind: 'resume', id, root: record.paths.root, ...(budgets ? { budgets } : {}), by: by.name });
  return actionOf(core, id, record, 'Resuming');
}
