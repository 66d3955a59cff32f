import { sleep, systemTimers, type Timers } from '../../../core/clock.ts';
import { AgencyError, errorMessage } from '../../../core/errors.ts';
import { type Component, isIdleWorker, isTaskableAgent } from '../../discovery/component.ts';
import type { WorkerClient } from '../../worker-client.ts';

/** Where a task went: the worker that took it, and what it answered. */
export type Placed<T> = { component: Component; answer: T };

/** Options of {@link placeTask}. */
export type PlaceOptions<T> = {
  /** The components to choose from, asked again before each round: fresh statuses, in the order to try them. */
  candidates: () => Promise<Component[]>;
  /** Sends the task to one worker: `POST /task`, or `continue` for a session's task. */
  send: (client: WorkerClient, component: Component) => Promise<T>;
  clientFor: (url: string) => WorkerClient;
  /** How long to keep trying while every worker is busy; 0 fails at once with `agent_busy`. @default 0 */
  waitMs?: number;
  timers?: Timers;
  signal?: AbortSignal;
  /** Told before each wait: how long, and who is busy. */
  onWait?: (wait: { delayMs: number; busy: string[] }) => void;
  /** @default Math.random, for the jitter of the backoff */
  random?: () => number;
};

/**
 * Sends a task to an idle worker (the CLI director's routing). Idle, healthy, taskable agents are tried in the
 * order given; one that answers 409 `agent_busy` (another director took it since its last poll), 503 (starting or
 * stopping) or refuses the connection is passed over for the next, so two directors racing for the same worker
 * both end up placed when two are idle. Busy workers are not asked.
 *
 * When none takes it, it fails with `agent_busy` (some worker exists but is busy) or `no_worker` (none at all),
 * unless `waitMs` is given: then it asks again with a jittered backoff (250 ms doubling to 5 s) until one takes it
 * or `waitMs` runs out. Any other error (a refused request, an answer outside the API, a timeout, after which the
 * task may exist on that worker) ends it at once, so a task is never sent twice.
 */
export async function placeTask<T>({
  candidates,
  send,
  clientFor,
  waitMs = 0,
  timers = systemTimers,
  signal,
  onWait,
  random = Math.random,
}: PlaceOptions<T>): Promise<Placed<T>> {
  const deadline = timers.now() + waitMs;
  for (let round = 0; ; round++) {
    const components = await candidates();
    const passed: string[] = [];
    for (const component of components.filter(isIdleWorker)) {
      try {
        return { component, answer: await send(clientFor(component.url), component) };
      } catch (error) {
        if (!passOver(error)) throw error;
        passed.push(`${label(component)}: ${passedBecause(error as AgencyError)}`);
      }
    }
    const busy = [...busyOnes(components), ...passed];
    const left = deadline - timers.now();
    if (left <= 0) throw noneTook(components, busy, waitMs);
    const delayMs = Math.min(left, jitter(Math.min(5000, 250 * 2 ** round), random));
    onWait?.({ delayMs, busy });
    await sleep(delayMs, signal, timers);
  }
}

// A worker that could not take the task, for sure: it said so, or nothing was listening.
function passOver(error: unknown): boolean {
  if (!AgencyError.isInstance(error)) return false;
  if (error.code === 'agent_busy' || error.code === 'network_failed') return true;
  return error.details?.status === 503;
}

function passedBecause(error: AgencyError): string {
  const task = error.details?.current_task;
  if (error.code === 'agent_busy') return `busy${typeof task === 'string' ? ` (${task})` : ''}`;
  if (error.code === 'network_failed') return 'no answer';
  return errorMessage(error).replace(/^worker \S+: /, '');
}

function busyOnes(components: Component[]): string[] {
  return components
    .filter((component) => isTaskableAgent(component) && !isIdleWorker(component))
    .map((component) => {
      const { status, health } = component;
      const task = status?.current_task ? ` (${status.current_task.id})` : '';
      return `${label(component)}: ${health === 'green' ? `${status?.state}${task}` : `${health}, ${component.error}`}`;
    });
}

function noneTook(components: Component[], busy: string[], waitMs: number): AgencyError {
  const waited = waitMs > 0 ? ` after waiting ${Math.round(waitMs / 1000)} s` : '';
  if (!components.some(isTaskableAgent)) {
    const failing = components.filter((component) => component.error !== undefined);
    const why = failing.length
      ? `none answered as one (${failing.map((component) => `${component.url}: ${component.error}`).join('; ')})`
      : 'none was found. Start one (`agency worker`), or name one with --agent URL';
    return new AgencyError('no_worker', `No worker to take the task${waited}: ${why}.`);
  }
  const hint = waitMs > 0 ? '' : ' --wait SECONDS waits for one to be free.';
  return new AgencyError('agent_busy', `Every worker is busy${waited} (${busy.join('; ')}).${hint}`, {
    details: { busy },
  });
}

/** How a component is named in messages: its name and URL. */
export function label(component: Component): string {
  return component.status?.name ? `${component.status.name} (${component.url})` : component.url;
}

function jitter(ms: number, random: () => number): number {
  return Math.round(ms * (0.8 + 0.4 * random()));
}
