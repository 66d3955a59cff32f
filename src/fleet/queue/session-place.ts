// Where a queue task taken by a worker runs when sessions are on shared storage, and whether it continues the run of
// a worker lost while it ran.
import { hasUnfinishedTurn } from '../executors/builtin/builtin-task-root.ts';
import { sharedSessionDir } from './shared-sessions.ts';

/** Where a taken task runs on shared storage, and whether it continues the run of a lost worker. */
export type SessionPlace = { sessionDir: string; retake?: { epoch: number } };

/**
 * Places a taken task's session on the shared storage. A `builtin` task taken over from a lost worker (`lost`)
 * whose last turn is a governed run that started and did not finish resumes it from its journal (`retake`); any
 * other lost task that is run again (`rerun`) starts from its prompt in an emptied session directory, as on a
 * worker's own disk, and one that is not keeps what its run left.
 *
 * @throws AgencyError as {@link sharedSessionDir}, and when a turn root on the share is not a plain directory.
 */
export async function placeSession(
  shared: string,
  task: { sessionId: string; executor: string; lost: boolean; rerun: boolean; epoch: number },
): Promise<SessionPlace> {
  const sessionDir = await sharedSessionDir(shared, task.sessionId);
  if (!task.lost) return { sessionDir };
  if (task.executor === 'builtin' && (await hasUnfinishedTurn(sessionDir)))
    return { sessionDir, retake: { epoch: task.epoch } };
  if (!task.rerun) return { sessionDir };
  return { sessionDir: await sharedSessionDir(shared, task.sessionId, { fresh: true }) };
}
