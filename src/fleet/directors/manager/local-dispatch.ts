import { AgencyError } from '../../../core/errors.ts';
import type { Component } from '../../discovery/component.ts';
import type { WorkerClient } from '../../worker-client.ts';
import { followTask } from '../cli/follow-task.ts';
import { placeTask } from '../cli/place-task.ts';
import type { DispatchOutcome, DispatchedTask, TaskDispatch } from '../task-dispatch.ts';

/** What {@link createLocalDispatch} works with. */
export type LocalDispatchOptions = {
  /** The components to choose from, freshly polled (a discovery's `refresh`). */
  candidates: () => Promise<Component[]>;
  clientFor: (url: string) => WorkerClient;
  /** How long a worker may not answer while a task is followed before the task counts as lost. @default 10_000 */
  lostAfterMs?: number;
};

/**
 * A {@link TaskDispatch} over discovery and HTTP on one machine: a task goes to an idle worker among the candidates
 * (the CLI director's routing, `prefer` first), and is followed by polling its worker. A worker that stops answering, or
 * that restarted and reports the task `worker_lost`, settles it as `lost`.
 */
export function createLocalDispatch(options: LocalDispatchOptions): TaskDispatch {
  const { candidates, clientFor, lostAfterMs = 10_000 } = options;
  const on = (task: DispatchedTask) => clientFor(task.worker.url);
  const signalOf = (signal: AbortSignal | undefined) => (signal ? { signal } : {});
  return {
    async dispatch({ prefer, waitMs = 0, ...request }, { signal } = {}) {
      const placed = await placeTask({
        candidates: async () => preferred(await candidates(), prefer),
        send: (client) => client.submit(request, signalOf(signal)),
        clientFor,
        waitMs,
        ...signalOf(signal),
      });
      const { component, answer } = placed;
      return {
        worker: { name: component.status?.name ?? component.url, url: component.url },
        task_id: answer.task_id,
        session_id: answer.session_id,
      };
    },
    async settle(task, { signal } = {}) {
      try {
        const settled = await followTask({
          client: on(task),
          taskId: task.task_id,
          lostAfter: Number.POSITIVE_INFINITY,
          lostAfterMs,
          ...signalOf(signal),
        });
        return outcomeOf(settled);
      } catch (error) {
        if (signal?.aborted) throw error;
        if (AgencyError.isInstance(error) && (error.retryable || error.code === 'task_not_found'))
          return { state: 'lost', error: { type: 'worker_lost', message: error.message } };
        throw error;
      }
    },
    async continue(task, prompt, { signal } = {}) {
      await on(task).continue(task.task_id, prompt, signalOf(signal));
    },
    async end(task, { signal } = {}) {
      await on(task).end(task.task_id, signalOf(signal));
    },
    async cancel(task, { signal } = {}) {
      await on(task).cancel(task.task_id, signalOf(signal));
    },
  };
}

function preferred(components: Component[], prefer: string | undefined): Component[] {
  if (!prefer) return components;
  const first = (component: Component) => component.url === prefer || component.status?.name === prefer;
  return [...components].sort((a, b) => Number(first(b)) - Number(first(a)));
}

function outcomeOf(task: Awaited<ReturnType<typeof followTask>>): DispatchOutcome {
  if (task.state === 'failed') {
    const error = task.error ?? { type: 'executor_error' as const, message: 'The task failed without an error.' };
    // A worker killed mid-task reports it so at its restart.
    if (error.type === 'worker_lost') return { state: 'lost', error: { type: 'worker_lost', message: error.message } };
    return { state: 'failed', task, error };
  }
  if (task.state === 'idle' || task.state === 'completed' || task.state === 'cancelled')
    return { state: task.state, task };
  throw new AgencyError('internal', `${task.task_id} settled in state ${task.state}`);
}
