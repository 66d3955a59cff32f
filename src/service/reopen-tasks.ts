import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../task/fs/atomic-write.ts';
import { enqueueStart, liveOf, type ServiceCore, taskIdsOf } from './service-core.ts';
import { readTaskRecord, statusOf } from './task-records.ts';

// The runs a closing service stopped, under the server's own folder: the next open resumes them.
const IN_FLIGHT = 'in-flight.json';

/**
 * Finds the tasks of the data root again: those queued before a restart queue again, and (with `resume`) runs that
 * were in flight resume: interrupted ones, and those the last `close` stopped.
 */
export async function reopenTasks(core: ServiceCore, resume: boolean): Promise<void> {
  const file = join(core.root.server, IN_FLIGHT);
  const stoppedByClose = new Set<string>(JSON.parse(await readFile(file, 'utf8').catch(() => '[]')) as string[]);
  for (const id of await taskIdsOf(core)) {
    const record = await readTaskRecord(join(core.root.tasks, id), id).catch(() => undefined);
    if (!record) continue;
    if (record.request && !record.spec && !record.request.hold && !record.request.start_error) {
      enqueueStart(core, id, record);
      continue;
    }
    if (!resume || !record.state || record.owner?.alive) continue;
    const status = statusOf(record, liveOf(core, id));
    if (status === 'interrupted' || (stoppedByClose.has(id) && record.state.finish_reason === 'stopped')) {
      core.logger.info({ task_id: id }, 'resuming a run that was in flight');
      core.queue.enqueue({ kind: 'resume', id, root: record.paths.root, by: 'server (after a restart)' });
    }
  }
  await rm(file, { force: true });
}

/** Stops every run at its next boundary, remembering them so the next open resumes them, and waits. */
export async function closeTasks(core: ServiceCore): Promise<void> {
  const inFlight = core.queue.liveIds();
  await writeFileAtomic(join(core.root.server, IN_FLIGHT), `${JSON.stringify(inFlight)}\n`);
  await core.queue.drain('stopped');
}
