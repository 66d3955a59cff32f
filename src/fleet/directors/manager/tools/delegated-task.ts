import { AgencyError } from '../../../../core/errors.ts';
import { workerTaskIdSchema } from '../../../api/worker-schemas.ts';
import type { DispatchedTask } from '../../task-dispatch.ts';
import type { DelegationContext } from './delegation-context.ts';

/** A worker task id, as the delegation tools take it. */
export const taskIdInput = workerTaskIdSchema.describe('The task_id delegate_task answered');

/**
 * The delegated task with this id, from the ledger: the manager awaits and reads only tasks it delegated, on the
 * worker it delegated them to.
 *
 * @throws AgencyError `task_not_found` for a task id no delegation of this manager recorded.
 */
export async function delegatedTask(
  context: Pick<DelegationContext, 'ledger'>,
  taskId: string,
): Promise<DispatchedTask> {
  const delegation = (await context.ledger.all()).findLast(
    (entry) => entry.task_id === taskId && entry.state === 'sent' && entry.worker !== null,
  );
  if (!delegation?.worker)
    throw new AgencyError(
      'task_not_found',
      `${taskId} is not a task this manager delegated; await and read only the task_id of an earlier delegate_task`,
      { details: { task_id: taskId } },
    );
  return { worker: delegation.worker, task_id: taskId, session_id: delegation.session_id };
}

/** The end of a worker's text, at most `max` characters, marked where it was cut. */
export function tail(text: string | null, max: number): string | null {
  if (text === null || text.length <= max) return text;
  return `[… ${text.length - max} earlier characters cut …]\n${text.slice(text.length - max)}`;
}
