// Handing a task out at most once across a crash of the director: before the worker is asked, the director records
// a placement (the session the task will start, or the task it continues and its turn count); a restart that finds a
// placement without a task looks for it on the workers (`findPlaced`) and hands it out again only when no worker
// has it. The manager's delegations, the GitHub director's turns and the scheduler's runs all place tasks this way.
import { AgencyError } from '../../core/errors.ts';
import type { WorkerTask } from '../api/worker-schemas.ts';
import { type Component, isTaskableAgent } from '../discovery/component.ts';
import type { WorkerClient } from '../worker-client.ts';
import type { DispatchedTask } from './task-dispatch.ts';

/** A task about to be handed out, as recorded before any worker is asked. */
export type Placement = {
  /** The session the task starts (chosen by the director, so the task can be found by it) or continues. */
  session_id: string;
  /** The worker, when the task goes to a named one (or continues a task there); null for whichever is idle. */
  worker: { name: string; url: string } | null;
  /** The next turn of an existing task: its id and its count of turns before this one. */
  continued?: { task_id: string; turns_before: number } | undefined;
};

/** How the workers are reached to look for a placed task. */
export type WorkerLookup = {
  /** The components discovery finds now, freshly polled. */
  discover(): Promise<Component[]>;
  clientFor(url: string): WorkerClient;
};

// How far back a worker's history is searched for a task whose answer was lost: its newest records.
const HISTORY_SEARCHED = 100;

/**
 * The task `placement` became, if a worker took it before the director stopped: the next turn of a continued task
 * (its turn count went past the one recorded), or a task of the placement's session that is not in `recorded` (the
 * tasks the director already knows), on the placement's worker when it is known, else on any worker discovery finds
 * answering (its open tasks, then its recent history; a worker that no longer answers has lost it anyway).
 * Undefined when no worker has it, so it is safe to hand out again.
 *
 * @throws AgencyError a retryable one when the worker that may have it does not answer: handing it out again could
 *   run the task twice.
 */
export async function findPlaced(
  lookup: WorkerLookup,
  placement: Placement,
  recorded: ReadonlySet<string> = new Set(),
): Promise<DispatchedTask | undefined> {
  const { worker, session_id: sessionId, continued } = placement;
  if (continued && worker) {
    const task = await lookup.clientFor(worker.url).task(continued.task_id);
    return task.turns > continued.turns_before ? { worker, task_id: task.task_id, session_id: sessionId } : undefined;
  }
  const answering = (component: Component) => isTaskableAgent(component) && component.health === 'green';
  const workers = worker ? [worker] : (await lookup.discover()).filter(answering).map(named);
  for (const candidate of workers) {
    const found = await sessionTaskOn(lookup, candidate.url, sessionId, recorded);
    if (found) return { worker: candidate, task_id: found.task_id, session_id: sessionId };
  }
  return undefined;
}

async function sessionTaskOn(
  lookup: Pick<WorkerLookup, 'clientFor'>,
  url: string,
  sessionId: string,
  recorded: ReadonlySet<string>,
): Promise<Pick<WorkerTask, 'task_id'> | undefined> {
  const client = lookup.clientFor(url);
  const fresh = (task: { task_id: string; session_id: string }) =>
    task.session_id === sessionId && !recorded.has(task.task_id);
  try {
    const open = (await client.tasks()).find(fresh);
    if (open) return open;
    return (await client.history({ page: 1, limit: HISTORY_SEARCHED })).items.find(fresh);
  } catch (error) {
    if (!AgencyError.isInstance(error) || !error.retryable) throw error;
    throw new AgencyError(
      error.code,
      `${url} may hold the task of session ${sessionId} but does not answer (${error.message}); it is not sent ` +
        'again until that worker answers. Try again later.',
      { cause: error, details: { url, session_id: sessionId } },
    );
  }
}

function named(component: Component): { name: string; url: string } {
  return { name: component.status?.name ?? component.url, url: component.url };
}

/**
 * A session id made from a 64-hex-digit key (a version-4 UUID), for a placement whose key is known before it is
 * recorded (the manager's: the digest of its run and tool call).
 */
export function sessionIdOf(key: string): string {
  const variant = ((Number.parseInt(key[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${key.slice(0, 8)}-${key.slice(8, 12)}-4${key.slice(13, 16)}-${variant}${key.slice(17, 20)}-${key.slice(20, 32)}`;
}
