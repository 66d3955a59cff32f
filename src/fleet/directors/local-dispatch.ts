// The `TaskDispatch` of one machine: discovery finds the workers, `placeTask` (the CLI director's routing) hands a
// task to an idle one, `followTask` polls it until it settles, and the worker client does the rest.
import { systemTimers, type Timers } from '../../core/clock.ts';
import { AgencyError, errorMessage } from '../../core/errors.ts';
import type { Component } from '../discovery/component.ts';
import type { WorkerClient } from '../worker-client.ts';
import { followTask } from './cli/follow-task.ts';
import { placeTask } from './cli/place-task.ts';
import { findPlaced } from './placement.ts';
import type { DispatchOutcome, DispatchRequest, DispatchedTask, TaskDispatch } from './task-dispatch.ts';

/** Options of {@link createLocalDispatch}. */
export type LocalDispatchOptions = {
  /** The components to choose from, freshly polled (a discovery's `refresh`). */
  candidates: () => Promise<Component[]>;
  clientFor: (url: string) => WorkerClient;
  timers?: Timers;
  /** How long a worker may not answer while a task is followed before the task counts as lost. @default 30000 */
  lostAfterMs?: number;
  /** Told before each wait for an idle worker. */
  onWait?: (wait: { delayMs: number; busy: string[] }) => void;
};

/**
 * A `TaskDispatch` over discovery and HTTP. `dispatch` tries idle workers (`prefer`, a worker's name or URL, first)
 * and waits up to `waitMs` for one; `settle` follows the task with adaptive polls (100 ms slowing to 1 s) and
 * reports `lost` (`worker_lost`) when its worker stops answering or answers without the task (it restarted); `find`
 * looks for a placed task on the workers discovery finds.
 */
export function createLocalDispatch({
  candidates,
  clientFor,
  timers = systemTimers,
  lostAfterMs = 30_000,
  onWait,
}: LocalDispatchOptions): TaskDispatch {
  const call = (signal?: AbortSignal) => (signal ? { signal } : {});
  return {
    async dispatch({ prefer, waitMs = 0, labels = [], ...request }, { signal, onWait: onThisWait } = {}) {
      // Discovered workers do not report labels: a task that requires some is refused, not sent to any worker.
      if (labels.length > 0)
        throw new AgencyError(
          'invalid_config',
          `the task requires the labels ${labels.join(', ')}, which only fleet mode matches; set database: in the ` +
            "director's config (or AGENCY_DATABASE_URL), or remove the labels",
          { details: { field: 'labels' } },
        );
      const { component, answer } = await placeTask({
        candidates: async () => preferring(await candidates(), prefer),
        send: (client) => client.submit(request, call(signal)),
        clientFor,
        waitMs,
        timers,
        ...(signal ? { signal } : {}),
        onWait: (wait) => {
          onWait?.(wait);
          onThisWait?.(wait);
        },
      });
      return {
        worker: { name: component.status?.name ?? component.url, url: component.url },
        task_id: answer.task_id,
        session_id: answer.session_id,
      };
    },
    async settle(task, { signal } = {}) {
      try {
        const settled = await followTask({
          client: clientFor(task.worker.url),
          taskId: task.task_id,
          timers,
          lostAfter: Number.POSITIVE_INFINITY,
          lostAfterMs,
          ...(signal ? { signal } : {}),
        });
        return outcomeOf(settled);
      } catch (error) {
        const lost = lostOutcome(task, error);
        if (lost) return lost;
        throw error;
      }
    },
    async continue(task, prompt, { signal } = {}) {
      await clientFor(task.worker.url).continue(task.task_id, prompt, call(signal));
    },
    async end(task, { signal } = {}) {
      await clientFor(task.worker.url).end(task.task_id, call(signal));
    },
    async cancel(task, { signal } = {}) {
      await clientFor(task.worker.url).cancel(task.task_id, call(signal));
    },
    find: (placement, { recorded } = {}) => findPlaced({ discover: candidates, clientFor }, placement, recorded),
  };
}

/** The components with the preferred one (by name or URL) first. */
function preferring(components: Component[], prefer: DispatchRequest['prefer']): Component[] {
  if (!prefer) return components;
  const rank = (component: Component) => Number(component.url === prefer || component.status?.name === prefer);
  return [...components].sort((a, b) => rank(b) - rank(a));
}

function outcomeOf(task: Awaited<ReturnType<WorkerClient['task']>>): DispatchOutcome {
  if (task.state === 'failed')
    return { state: 'failed', task, error: task.error ?? { type: 'internal', message: 'failed without a reason' } };
  if (task.state === 'idle' || task.state === 'completed' || task.state === 'cancelled')
    return { state: task.state, task };
  throw new AgencyError('internal', `task ${task.task_id} settled in state ${task.state}`);
}

// A task whose worker is gone (no answer for too long) or restarted without it (404) is lost; undefined for any
// other error (aborted, an answer outside the API), which the caller sees.
function lostOutcome(task: DispatchedTask, error: unknown): DispatchOutcome | undefined {
  if (!AgencyError.isInstance(error)) return undefined;
  const where = `${task.worker.name} (${task.worker.url})`;
  if (error.code === 'task_not_found')
    return lost(`worker ${where} no longer has task ${task.task_id}: it restarted, or its history was cleared`);
  if (error.code !== 'aborted' && error.retryable)
    return lost(`worker ${where} stopped answering while running task ${task.task_id}: ${errorMessage(error)}`);
  return undefined;
}

function lost(message: string): DispatchOutcome {
  return { state: 'lost', error: { type: 'worker_lost', message } };
}
