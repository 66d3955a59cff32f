import type { TaskAction } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { actionOf, enqueueStart, liveOf, recordOf, type ServiceCore } from './service-core.ts';
import { readTaskRecord, statusOf, writeTaskRequest } from './task-records.ts';
import type { Principal } from './task-service.ts';

/** Starts a task held for uploads: it is no longer held, and its run is queued. */
export async function releaseTask(core: ServiceCore, id: string, by: Principal): Promise<TaskAction> {
  const record = await recordOf(core, id);
  if (!record.request?.hold || record.spec)
    throw new AgencyError('task_state_conflict', `Task ${id} is not held: it was started already`, {
      details: { task_id: id, status: statusOf(record, liveOf(core, id)) },
    });
  await writeTaskRequest(record.paths.root, { ...record.request, hold: false });
  const released = await readTaskRecord(record.paths.root, id);
  enqueueStart(core, id, released);
  core.logger.info({ task_id: id, by: by.name }, 'task released');
  return actionOf(core, id, released, 'Queued');
}
