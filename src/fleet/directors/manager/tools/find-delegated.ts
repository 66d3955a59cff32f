import { AgencyError } from '../../../../core/errors.ts';
import type { WorkerTask } from '../../../api/worker-schemas.ts';
import { type Component, isTaskableAgent } from '../../../discovery/component.ts';
import type { DispatchedTask } from '../../task-dispatch.ts';
import type { DelegationContext } from './delegation-context.ts';
import type { Delegation } from './delegation-ledger.ts';

// How far back a worker's history is searched for a task whose answer was lost: its newest records.
const HISTORY_SEARCHED = 100;

/**
 * The task a delegation announced as `sending` became, if a worker took it before the manager stopped: the next turn
 * of a continued task (its turn count went past the one recorded), or a task of the delegation's session that no
 * other delegation recorded, on the delegation's worker when it is known, else on any worker discovery finds (its
 * open tasks, then its recent history; a worker that no longer answers has lost it anyway). Undefined when no worker has it, so it is safe to send again.
 *
 * @throws AgencyError a retryable one when the worker that may have it does not answer: sending again could run the
 *   task twice.
 */
export async function findDelegated(
  context: Pick<DelegationContext, 'discover' | 'clientFor'>,
  delegation: Delegation,
  recorded: ReadonlySet<string>,
): Promise<DispatchedTask | undefined> {
  const { worker, session_id: sessionId } = delegation;
  if (delegation.how === 'continued' && worker && delegation.task_id) {
    const task = await context.clientFor(worker.url).task(delegation.task_id);
    const sent = task.turns > (delegation.turns_before ?? Number.POSITIVE_INFINITY);
    return sent ? { worker, task_id: task.task_id, session_id: sessionId } : undefined;
  }
  // Unnamed, it went to whichever worker was idle; one that no longer answers has lost it anyway.
  const answering = (component: Component) => isTaskableAgent(component) && component.health === 'green';
  const workers = worker ? [worker] : (await context.discover()).filter(answering).map(named);
  for (const candidate of workers) {
    const found = await sessionTaskOn(context, candidate.url, sessionId, recorded);
    if (found) return { worker: candidate, task_id: found.task_id, session_id: sessionId };
  }
  return undefined;
}

async function sessionTaskOn(
  context: Pick<DelegationContext, 'clientFor'>,
  url: string,
  sessionId: string,
  recorded: ReadonlySet<string>,
): Promise<Pick<WorkerTask, 'task_id'> | undefined> {
  const client = context.clientFor(url);
  const fresh = (task: { task_id: string; session_id: string }) =>
    task.session_id === sessionId && !recorded.has(task.task_id);
  try {
    const open = (await client.tasks()).find(fresh);
    if (open) return open;
    return (await client.history({ page: 1, limit: HISTORY_SEARCHED })).items.find(fresh);
  } catch (error) {
    if (!AgencyError.isInstance(error) || !error.retryable) throw error;
    throw new AgencyError(
      error.code,
      `${url} may hold the task of session ${sessionId} but does not answer (${error.message}); it is not sent ` +
        'again until that worker answers. Try the delegation again later.',
      { cause: error, details: { url, session_id: sessionId } },
    );
  }
}

function named(component: Component): { name: string; url: string } {
  return { name: component.status?.name ?? component.url, url: component.url };
}
