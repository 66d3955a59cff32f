import { errorMessage } from '../../../../core/errors.ts';
import { isFinal } from '../../cli/locate-session.ts';
import type { DelegationContext } from './delegation-context.ts';

/**
 * Cancels the tasks of this run's delegations that are still queued or working, when the manager's own task is
 * cancelled or times out, so no worker goes on with work nobody awaits. Returns what could not be cancelled, one
 * line each (a worker that no longer answers, say).
 */
export async function cancelDelegations(context: Pick<DelegationContext, 'ledger' | 'dispatch' | 'clientFor'>) {
  const problems: string[] = [];
  for (const delegation of await context.ledger.all()) {
    const { worker, task_id: taskId, session_id: sessionId } = delegation;
    if (delegation.state !== 'sent' || !worker || !taskId) continue;
    try {
      const task = await context.clientFor(worker.url).task(taskId);
      if (isFinal(task.state) || task.state === 'idle') continue;
      await context.dispatch.cancel({ worker, task_id: taskId, session_id: sessionId });
    } catch (error) {
      problems.push(`${taskId} on ${worker.name} was not cancelled: ${errorMessage(error)}`);
    }
  }
  return problems;
}
