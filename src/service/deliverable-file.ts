import type { FileHandle } from 'node:fs/promises';
import { AgencyError } from '../core/errors.ts';
import { listDeliverables } from '../task/deliverables.ts';
import { openWithScope } from '../tools/guards/path-open.ts';
import { resolveScope } from '../tools/guards/path-roots.ts';
import type { TaskRecord } from './task-records.ts';

/** A deliverable opened for download. */
export type OpenedDeliverable = { handle: FileHandle; size: number; mime: string; name: string; sha256: string };

/**
 * Opens a file the run delivered, for download: only a path the deliverables listing names (regular files under
 * `progress/artifacts/`, no links, no special files), opened again through the path guard so nothing swapped in since
 * is followed. The caller closes the handle.
 *
 * @throws AgencyError `path_not_found` for anything that is not a deliverable of the task.
 */
export async function openDeliverable(record: TaskRecord, path: string): Promise<OpenedDeliverable> {
  const { deliverables } = await listDeliverables(record.paths);
  const found = deliverables.find((file) => file.path === path || file.path === `progress/artifacts/${path}`);
  if (!found)
    throw new AgencyError('path_not_found', `"${path.slice(0, 200)}" is not a deliverable of task ${record.id}`, {
      details: { task_id: record.id, path: path.slice(0, 200) },
    });
  const relative = found.path.slice('progress/artifacts/'.length);
  const { handle, stats } = await openWithScope(await resolveScope([record.paths.artifacts]), relative, 'read');
  return {
    handle,
    size: stats.size,
    mime: found.mime,
    name: relative.split('/').at(-1) ?? relative,
    sha256: found.sha256,
  };
}
