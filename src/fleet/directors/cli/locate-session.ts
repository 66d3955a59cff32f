import { AgencyError } from '../../../core/errors.ts';
import { FINAL_WORKER_TASK_STATES, type WorkerTaskState } from '../../api/worker-schemas.ts';
import { type Component, isTaskable } from '../../discovery/component.ts';
import type { WorkerClient } from '../../worker-client.ts';
import { readSessions, type SessionRecord } from './sessions.ts';

/** Where a session's latest task is, and its state. */
export type SessionLocation = { url: string; taskId: string; state: WorkerTaskState };

/** True for a state a task no longer leaves. */
export const isFinal = (state: WorkerTaskState) => (FINAL_WORKER_TASK_STATES as readonly string[]).includes(state);

/**
 * Finds the task that holds `sessionId`: first where the CLI director last sent it (`record`), else by asking every
 * taskable agent for its tasks (`GET /tasks`), preferring a task still open (idle or working) over an ended one.
 * Undefined when no worker knows the session.
 */
export async function locateSession({
  sessionId,
  record,
  components,
  clientFor,
}: {
  sessionId: string;
  record: SessionRecord | undefined;
  components: () => Promise<Component[]>;
  clientFor: (url: string) => WorkerClient;
}): Promise<SessionLocation | undefined> {
  let recorded: SessionLocation | undefined;
  let unreachable: AgencyError | undefined;
  if (record) {
    try {
      const task = await clientFor(record.url).task(record.task_id);
      if (task.session_id === sessionId) recorded = { url: record.url, taskId: task.task_id, state: task.state };
    } catch (error) {
      // Gone from that worker (it restarted without its history) or not answering: look for the session elsewhere.
      if (!AgencyError.isInstance(error) || (error.code !== 'task_not_found' && !error.retryable)) throw error;
      if (error.retryable) unreachable = error;
    }
    if (recorded && !isFinal(recorded.state)) return recorded;
  }
  const found: SessionLocation[] = recorded ? [recorded] : [];
  for (const component of (await components()).filter(isTaskable)) {
    if (component.health !== 'green' || component.url === recorded?.url) continue;
    for (const task of await clientFor(component.url).tasks()) {
      if (task.session_id === sessionId) found.push({ url: component.url, taskId: task.task_id, state: task.state });
    }
  }
  // Task ids sort by creation time, as ULIDs do: the latest task of the session, open ones first.
  found.sort((a, b) => Number(isFinal(a.state)) - Number(isFinal(b.state)) || b.taskId.localeCompare(a.taskId));
  if (found[0] === undefined && unreachable !== undefined) throw unreachable;
  return found[0];
}

/**
 * The session `--continue`, `--session` or `--end` names (`'last'`: the latest in the director's file), where its
 * latest task is, and the worker that last ran it.
 *
 * @throws AgencyError `invalid_argument` when there is no last session, or no worker knows the one named.
 */
export async function findSession({
  session,
  file,
  agencyRoot,
  components,
  clientFor,
}: {
  session: string;
  file: string;
  agencyRoot: string;
  components: () => Promise<Component[]>;
  clientFor: (url: string) => WorkerClient;
}): Promise<{ sessionId: string; location: SessionLocation | undefined; lastUrl: string | undefined }> {
  const sessions = await readSessions(file);
  const sessionId = session === 'last' ? sessions[0]?.session_id : session;
  if (!sessionId) {
    throw new AgencyError(
      'invalid_argument',
      `No session to carry on: \`agency task\` has not started one with this data root (${agencyRoot}). ` +
        'Pass --session ID.',
    );
  }
  const record = sessions.find((entry) => entry.session_id === sessionId);
  const location = await locateSession({ sessionId, record, components, clientFor });
  if (!location && !record) throw new AgencyError('invalid_argument', `No worker knows session ${sessionId}.`);
  return { sessionId, location, lastUrl: location?.url ?? record?.url };
}
