// A queue-mode worker killed after saving a task's end in its own history but before that end reached the database
// leaves the task `working` under its name there, its result on the worker's disk alone. Left so, the task's lease
// would lapse and another worker would run it again: two ends for one task. Restarted, the worker commits that end
// instead, fenced by the epoch it ran under (a task another worker has taken since is no longer under its name).
// A run it lost in the crash is the lease's to hand on, or, with no job behind it (a later turn), fails at once.
import type { Pool } from 'pg';
import type { HistoryRecord } from '../api/worker-schemas.ts';
import { isRunning } from '../worker/task-record.ts';
import { failLostTasks, type LostTask } from './lost-tasks.ts';
import type { TaskMirror } from './task-mirror.ts';
import { heldTasks } from './task-rows.ts';

/**
 * Writes to the database the ends this worker saved and never sent: each task the database says this worker runs,
 * whose record in its history ended (or went idle). A record that the restart marked `worker_lost` is left to the
 * lease when the task's job is live (a first turn), and failed `worker_lost` in the database when none is (a later
 * turn: {@link failLostTasks}); one that did not end is left to the lease. Returns the ids written and failed (a
 * write a newer epoch beat goes to the mirror's `onStale`, as any other).
 */
export async function commitUnsentEnds(
  pool: Pool,
  worker: string,
  mirror: TaskMirror,
  recordOf: (taskId: string) => Promise<HistoryRecord | undefined>,
): Promise<{ committed: string[]; failed: LostTask[] }> {
  const committed: string[] = [];
  const failed: LostTask[] = [];
  for (const { id, epoch, lines, events } of await heldTasks(pool, worker, 'working')) {
    const saved = await recordOf(id);
    if (!saved || isRunning(saved.state)) continue;
    if (saved.error?.type === 'worker_lost') {
      failed.push(...(await failLostTasks(pool, { taskId: id, restarted: worker })));
      continue;
    }
    mirror.hold(id, epoch, { sentLines: lines, events });
    await mirror.save(saved);
    committed.push(id);
  }
  return { committed, failed };
}
