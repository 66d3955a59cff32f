// The workers a director sees, as `GET /agents` lists them, and how it asks them about a task.
import type { DirectorAgent } from '../../api/director-schemas.ts';
import type { Component } from '../../discovery/component.ts';
import type { WorkerClient } from '../../worker-client.ts';
import type { DispatchedTask } from '../task-dispatch.ts';

/** The components discovery knows of, as `GET /agents` lists them: taskable agents first, by URL. */
export function agentsOf(components: readonly Component[]): DirectorAgent[] {
  return components
    .filter((component) => component.status === undefined || component.status.type === 'agent')
    .map((component) => ({
      url: component.url,
      name: component.status?.name ?? null,
      state: component.status?.state ?? null,
      health: component.health,
      failures: component.failures,
      error: component.error ?? null,
      current_task: component.status?.current_task?.id ?? null,
      uptime_seconds: component.status?.uptime_seconds ?? null,
      seen_at: component.seenAt === undefined ? null : new Date(component.seenAt).toISOString(),
    }))
    .sort((a, b) => a.url.localeCompare(b.url));
}

/**
 * Whether a task still runs on its worker (queued, working or cancelling), for the workspace locks: a worker that
 * does not answer, or no longer has the task, counts as not running it.
 */
export function taskRunningOn(clientFor: (url: string) => WorkerClient) {
  return async (task: DispatchedTask): Promise<boolean> => {
    try {
      const { state } = await clientFor(task.worker.url).task(task.task_id);
      return state === 'queued' || state === 'working' || state === 'cancelling';
    } catch {
      return false;
    }
  };
}
