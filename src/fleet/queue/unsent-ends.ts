// A queue-mode worker killed after saving a task's end in its own history but before that end reached the database
// leaves the task `working` under its name there, its result on the worker's disk alone. Left so, the task's lease
// would lapse and another worker would run it again: two ends for one task. Restarted, the worker commits that end
// instead, fenced by the epoch it ran under (a task another worker has taken since is no longer under its name).
import type { Pool } from 'pg';
import type { HistoryRecord } from '../api/worker-schemas.ts';
import { isRunning } from '../worker/task-record.ts';
import type { TaskMirror } from './task-mirror.ts';
import { heldTasks } from './task-rows.ts';

/**
 * Writes to the database the ends this worker saved and never sent: each task the database says this worker runs,
 * whose record in its history ended (or went idle). A record that did not end, or that the restart marked
 * `worker_lost`, is left to the lease. Returns the ids written (a write a newer epoch beat goes to the mirror's
 * `onStale`, as any other).
 */
export async function commitUnsentEnds(
  pool: Pool,
  worker: string,
  mirror: TaskMirror,
  recordOf: (taskId: string) => Promise<HistoryRecord | undefined>,
): Promise<string[]> {
  const committed: string[] = [];
  for (const { id, epoch, lines, events } of await heldTasks(pool, worker, 'working')) {
    const saved = await recordOf(id);
    if (!saved || isRunning(saved.state) || saved.error?.type === 'worker_lost') continue;
    mirror.hold(id, epoch, { sentLines: lines, events });
    await mirror.save(saved);
    committed.push(id);
  }
  return committed;
}
