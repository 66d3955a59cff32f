import { sleep, systemTimers, type Timers } from '../../../core/clock.ts';
import { AgencyError, errorMessage } from '../../../core/errors.ts';
import type { WorkerTask, WorkerTaskState } from '../../api/worker-schemas.ts';
import type { WorkerClient } from '../../worker-client.ts';

/** The states in which a follower stops: the turn is over (`idle`, the session open) or the task is. */
export const SETTLED_STATES: readonly WorkerTaskState[] = ['idle', 'completed', 'failed', 'cancelled'];

/** What a follower knows at each poll. */
export type TaskProgress = {
  task: WorkerTask | undefined;
  /** The worker's latest lifecycle line since following began. */
  event: string | undefined;
  /** Polls in a row the worker did not answer (it may be restarting). */
  missed: number;
};

/** Options of {@link followTask}. */
export type FollowOptions = {
  client: WorkerClient;
  taskId: string;
  onProgress?: (progress: TaskProgress) => void;
  signal?: AbortSignal;
  timers?: Timers;
  /** The first poll's delay; each next one is 1.5 times longer, up to `maxPollMs`. @default 100 */
  minPollMs?: number;
  /** @default 1000, seed 004's pace for a working agent */
  maxPollMs?: number;
  /** Polls in a row without an answer after which the worker counts as lost. @default 10 */
  lostAfter?: number;
  /** How long without an answer the worker counts as lost, however few polls that was. @default 30000 */
  lostAfterMs?: number;
};

/**
 * Polls a worker's task until it settles, and returns it. Polls start quick (100 ms) so a short task is seen to end
 * soon, and slow to once a second; the worker's `/status` is read at most once a second for its latest lifecycle
 * line. Retryable failures (no answer, a 5xx) are ridden out up to `lostAfter` polls in a row or `lostAfterMs`; an
 * answer outside the API ends it at once.
 */
export async function followTask({
  client,
  taskId,
  onProgress,
  signal,
  timers = systemTimers,
  minPollMs = 100,
  maxPollMs = 1000,
  lostAfter = 10,
  lostAfterMs = 30_000,
}: FollowOptions): Promise<WorkerTask> {
  const since = timers.now();
  let delay = minPollMs;
  let missed = 0;
  let missingSince = 0;
  let task: WorkerTask | undefined;
  let event: string | undefined;
  let statusReadAt = Number.NEGATIVE_INFINITY;
  for (;;) {
    try {
      task = await client.task(taskId, signal ? { signal } : {});
      missed = 0;
    } catch (error) {
      if (missed++ === 0) missingSince = timers.now();
      const gone = missed >= lostAfter || timers.now() - missingSince >= lostAfterMs;
      if (!AgencyError.isInstance(error) || !error.retryable || gone) throw lost(client, taskId, error);
    }
    const settled = task !== undefined && SETTLED_STATES.includes(task.state);
    if (!settled && missed === 0 && timers.now() - statusReadAt >= maxPollMs) {
      statusReadAt = timers.now();
      event = (await latestEvent(client, taskId, since, signal)) ?? event;
    }
    onProgress?.({ task, event, missed });
    if (settled && task) return task;
    await sleep(delay, signal, timers);
    delay = Math.min(maxPollMs, Math.round(delay * 1.5));
  }
}

// The last lifecycle line the worker logged since `since`, of this task where lines name their task; none when
// /status fails (the task poll tells of that).
async function latestEvent(
  client: WorkerClient,
  taskId: string,
  since: number,
  signal?: AbortSignal,
): Promise<string | undefined> {
  try {
    const { log } = await client.status(signal ? { signal } : {});
    const recent = log.filter((line) => Date.parse(line.time) >= since - 1000);
    const own = recent.filter((line) => line.message.includes(taskId));
    return (own.length > 0 ? own : recent).at(-1)?.message;
  } catch {
    return undefined;
  }
}

function lost(client: WorkerClient, taskId: string, error: unknown): unknown {
  if (!AgencyError.isInstance(error) || !error.retryable) return error;
  return new AgencyError(
    error.code,
    `Lost the worker while following ${taskId}: ${errorMessage(error)}. The task may still run there; ` +
      `see \`agency fleet\`.`,
    { cause: error, details: { ...error.details, url: client.url, task_id: taskId } },
  );
}
