import { join } from 'node:path';
import type { TaskFilter, TaskList, TaskSummary } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { isId } from '../core/ids.ts';
import { liveOf, type ServiceCore, taskIdsOf } from './service-core.ts';
import { readTaskRecord, summaryOf } from './task-records.ts';
import type { ListQuery } from './task-service.ts';

/** A page of the task list, newest first, of the tasks that match the filter; `next_cursor` is where the next begins. */
export async function listTasks(
  core: ServiceCore,
  { filter = [], cursor, limit = 20 }: ListQuery = {},
): Promise<TaskList> {
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new AgencyError('invalid_argument', 'limit: must be an integer from 1 to 100', {
      details: { field: 'limit' },
    });
  if (cursor !== undefined && !isId(cursor, 'task'))
    throw new AgencyError('invalid_argument', 'cursor: not a cursor this server gave', {
      details: { field: 'cursor' },
    });
  const ids = (await taskIdsOf(core)).filter((id) => cursor === undefined || id < cursor).reverse();
  const items: TaskSummary[] = [];
  let last: string | undefined;
  for (const id of ids) {
    if (items.length === limit) break;
    last = id;
    // A root that cannot be read (a refused workflow marker among them) is left out; GET /agent/tasks/{id} says why.
    const summary = await readTaskRecord(join(core.root.tasks, id), id)
      .then((record) => summaryOf(record, liveOf(core, id)))
      .catch(() => undefined);
    if (summary && matches(summary, filter)) items.push(summary);
  }
  const more = last !== undefined && ids.indexOf(last) < ids.length - 1 && items.length === limit;
  return { items, next_cursor: more ? (last ?? null) : null };
}

function matches(summary: TaskSummary, filter: readonly TaskFilter[]): boolean {
  if (filter.length === 0) return true;
  return filter.some((wanted) =>
    wanted === 'stuck'
      ? summary.stuck !== null
      : wanted === 'active'
        ? ['created', 'queued', 'running', 'waiting_approval', 'interrupted'].includes(summary.status)
        : summary.status === wanted,
  );
}
