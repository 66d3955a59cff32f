import type { TaskAction } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { actionOf, liveOf, recordOf, type ServiceCore } from './service-core.ts';
import { readTaskRecord, statusOf, writeTaskRequest } from './task-records.ts';
import type { Principal } from './task-service.ts';
import { workflowRefusal } from './workflow-records.ts';

/**
 * Stops a task's run: a queued run is taken out of the queue (a start goes back to being held), a run here is asked
 * to stop at its next boundary, and a run in another process (the CLI) is asked through `progress/STOP`.
 */
export async function stopTask(
  core: ServiceCore,
  id: string,
  reason: 'stopped' | 'cancelled',
  by: Principal,
): Promise<TaskAction> {
  const { queue, logger } = core;
  const record = await recordOf(core, id);
  if (record.workflow) throw workflowRefusal(id, record.workflow, 'stop');
  if (queue.dequeue(id)) {
    if (record.request && !record.spec) await writeTaskRequest(record.paths.root, { ...record.request, hold: true });
    logger.info({ task_id: id, by: by.name }, 'queued run taken out of the queue');
    return actionOf(core, id, await readTaskRecord(record.paths.root, id), 'Taken out of the queue before it ran');
  }
  if (queue.stop(id, reason)) {
    logger.info({ task_id: id, by: by.name, reason }, 'stop asked');
    return actionOf(core, id, record, `Stopping (${reason}) within a second`);
  }
  if (record.owner?.alive) {
    // Run by another process (the CLI): the STOP file reaches it.
    await record.files.write(
      record.paths.stop,
      `stop requested by ${by.name} at ${new Date(core.now()).toISOString()}\n`,
    );
    return actionOf(core, id, record, 'Asked the process running it to stop (progress/STOP)');
  }
  throw new AgencyError('task_state_conflict', `Task ${id} is not running (${statusOf(record, liveOf(core, id))})`, {
    details: { task_id: id, status: statusOf(record, liveOf(core, id)) },
  });
}
