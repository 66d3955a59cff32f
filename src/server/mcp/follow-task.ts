import type { InboxItem, TaskSummary } from '../../api/schemas.ts';
import { AgencyError } from '../../core/errors.ts';
import type { TaskService } from '../../service/task-service.ts';
import type { EventFrame } from '../../task/contracts/events.ts';

/** Why following a task stopped. */
export type FollowEnd = 'finished' | 'waiting_approval' | 'not_running' | 'timeout';

/** What `follow_task` answers: why it stopped, the last seq it saw, the task, and what waits for a decision. */
export type FollowResult = {
  task_id: string;
  ended_because: FollowEnd;
  /** Pass as `after` to follow on from here. */
  last_seq: number;
  frames: number;
  task: TaskSummary;
  pending_approvals: InboxItem[];
};

/** Options for {@link followTask}. */
export type FollowOptions = {
  /** Frames after this seq. @default 0 */
  after?: number;
  /** Stop following after this long, even if the run goes on. */
  waitMs: number;
  signal: AbortSignal;
  /** Called with each frame as it comes (the MCP server sends it as a progress notification). */
  onFrame(frame: EventFrame): void;
  /** How long without a frame before the task is looked at again. @default 250 */
  idleMs?: number;
};

const IDLE = Symbol('idle');

/**
 * Follows a task's journal through the service until its run ends, it waits for a decision (a request is on file and
 * the run says it waits), it is not running at all (held, interrupted, never started), or `waitMs` passes.
 */
export async function followTask(service: TaskService, taskId: string, options: FollowOptions): Promise<FollowResult> {
  const { after = 0, waitMs, signal, onFrame, idleMs = 250 } = options;
  const deadline = Date.now() + waitMs;
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal.addEventListener('abort', abort, { once: true });
  const frames = (await service.events(taskId, { after, signal: controller.signal }))[Symbol.asyncIterator]();
  let next = frames.next();
  let lastSeq = after;
  let count = 0;
  let ended: FollowEnd = 'timeout';
  try {
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const tick = await raceTimer(next, Math.min(idleMs, remaining));
      if (signal.aborted) throw new AgencyError('aborted', 'The client cancelled follow_task');
      if (tick === IDLE) {
        const stop = stopReason(await service.summary(taskId));
        if (stop) {
          ended = stop;
          break;
        }
        continue;
      }
      if (tick.done) {
        ended = 'finished';
        break;
      }
      lastSeq = tick.value.seq;
      count++;
      onFrame(tick.value);
      next = frames.next();
    }
  } finally {
    signal.removeEventListener('abort', abort);
    controller.abort();
    // The journal's follower ends on the abort; its last pending read is settled and dropped.
    next.catch(() => undefined);
  }
  const [task, inbox] = await Promise.all([service.summary(taskId), service.inbox()]);
  return {
    task_id: taskId,
    ended_because: ended,
    last_seq: lastSeq,
    frames: count,
    task,
    pending_approvals: inbox.filter((item) => item.task_id === taskId),
  };
}

function stopReason(task: TaskSummary): FollowEnd | undefined {
  // Both: a request without a decision, and a run that says it waits (an auto decision follows its request at once).
  if (task.status === 'waiting_approval' && task.pending_approvals > 0) return 'waiting_approval';
  if (task.status === 'created' || task.status === 'interrupted') return 'not_running';
  if (task.status === 'failed' && task.finish_reason === null) return 'not_running';
  return undefined;
}

async function raceTimer<T>(promise: Promise<T>, ms: number): Promise<T | typeof IDLE> {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<typeof IDLE>((resolve) => {
    timer = setTimeout(() => resolve(IDLE), ms);
  });
  try {
    return await Promise.race([promise, idle]);
  } finally {
    clearTimeout(timer);
  }
}
