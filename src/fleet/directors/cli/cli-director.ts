import { systemTimers, type Timers } from '../../../core/clock.ts';
import { AgencyError } from '../../../core/errors.ts';
import type { EndResponse, WorkerTask, WorkerTaskRequest } from '../../api/worker-schemas.ts';
import { createWorkerClient, type WorkerClient } from '../../worker-client.ts';
import { followTask, type TaskProgress } from './follow-task.ts';
import { findSession, isFinal, type SessionLocation } from './locate-session.ts';
import { placeTask } from './place-task.ts';
import { rememberSession, sessionsFile } from './sessions.ts';
import { createWorkerFinder, type Where } from './worker-finder.ts';

/** Options of {@link createCliDirector}. */
export type CliDirectorOptions = {
  /** Where workers are looked for: the port range and the static list. */
  discovery: Where;
  /** The data root; the director remembers its sessions under `directors/cli/`. */
  agencyRoot: string;
  /** A bearer token, sent only to the workers named by URL (the static list, `--agent URL`). */
  token?: string;
  timers?: Timers;
  clientFor?: (url: string) => WorkerClient;
};

/** A task the director sent: which worker, and how (a new session, or the next turn of one). */
export type Dispatch = {
  url: string;
  name: string | undefined;
  taskId: string;
  sessionId: string;
  how: 'started' | 'continued' | 'resumed';
};

/** How a task is sent. */
export type SendOptions = {
  prompt: string;
  model?: string | undefined;
  timeoutSeconds?: number | undefined;
  /** A worker's URL, name or port; otherwise any idle worker. */
  agent?: string | undefined;
  /** Carry on this session; `'last'` is the last one the director sent. */
  session?: string | undefined;
  waitMs?: number;
  onWait?: (wait: { delayMs: number; busy: string[] }) => void;
  signal?: AbortSignal;
};

/**
 * The CLI director (`agency task`): finds an idle worker (discovery), sends it a task or the next turn of a session,
 * follows it, and remembers each session in `<AGENCY_ROOT>/directors/cli/sessions.json` for `--continue` and `--end`.
 */
export function createCliDirector(options: CliDirectorOptions) {
  const director = directorContext(options);
  const { clientFor, timers } = director;
  return {
    clientFor,
    /** The components discovery finds now. */
    components: () => director.discover(),

    /** Sends a task: a new session, or the next turn of `session` (continued when its task is open). */
    send: (send: SendOptions): Promise<Dispatch> => sendTask(director, send),

    /** Ends `session` (`'last'`: the last one): its open task is completed. */
    end: (session: string) => endSession(director, session),

    /** Follows a dispatched task until its turn is over. */
    follow(dispatch: Dispatch, onProgress?: (progress: TaskProgress) => void): Promise<WorkerTask> {
      return followTask({
        client: clientFor(dispatch.url),
        taskId: dispatch.taskId,
        timers,
        ...(onProgress ? { onProgress } : {}),
      });
    },

    /** Asks the worker to cancel a dispatched task. */
    cancel(dispatch: Dispatch) {
      return clientFor(dispatch.url).cancel(dispatch.taskId);
    },
  };
}

// What the director's actions share: the clients (with the token for workers named by URL), the worker finder, and
// the sessions file.
function directorContext({
  discovery: where,
  agencyRoot,
  token,
  timers = systemTimers,
  clientFor: customClient,
}: CliDirectorOptions) {
  const named = new Set((where.urls ?? []).map((url) => new URL(url).origin));
  const clientFor =
    customClient ??
    ((url: string) => createWorkerClient(url, token !== undefined && named.has(new URL(url).origin) ? { token } : {}));
  const file = sessionsFile(agencyRoot);
  const { discover, candidates } = createWorkerFinder({
    where,
    timers,
    clientFor,
    onNamed: (url) => named.add(new URL(url).origin),
  });
  return {
    clientFor,
    timers,
    file,
    discover,
    candidates,
    sessionOf: (session: string) => findSession({ session, file, agencyRoot, components: () => discover(), clientFor }),
  };
}
type DirectorContext = ReturnType<typeof directorContext>;

// Writes a dispatch to the sessions file, for `--continue` and `--end`.
async function remember({ file, timers }: DirectorContext, dispatch: Dispatch): Promise<Dispatch> {
  const { sessionId: session_id, taskId: task_id, url, name } = dispatch;
  await rememberSession(file, {
    session_id,
    task_id,
    url,
    ...(name ? { name } : {}),
    updated_at: new Date(timers.now()).toISOString(),
  });
  return dispatch;
}

// An open session's task gets the next turn on its worker; otherwise a new task (in the session given, resumed, or
// a new one) goes to an idle worker.
async function sendTask(director: DirectorContext, options: SendOptions): Promise<Dispatch> {
  const { prompt, model, timeoutSeconds, agent, session, waitMs = 0, onWait, signal } = options;
  const { clientFor, timers, candidates } = director;
  const place = { clientFor, waitMs, timers, ...(onWait ? { onWait } : {}), ...(signal ? { signal } : {}) };
  const call = signal ? { signal } : {};
  const found = session === undefined ? undefined : await director.sessionOf(session);
  if (found?.location && !isFinal(found.location.state)) {
    const { url, taskId, state } = found.location;
    if (state !== 'idle') {
      throw new AgencyError('agent_busy', `Session ${found.sessionId} is still ${state} (${taskId} on ${url}).`);
    }
    const placed = await placeTask({
      ...place,
      candidates: () => candidates(url),
      send: (client) => client.continue(taskId, prompt, call),
    });
    const { name } = placed.component.status ?? {};
    return remember(director, { url, name, taskId, sessionId: found.sessionId, how: 'continued' });
  }
  const request: WorkerTaskRequest = {
    prompt,
    ...(model ? { model } : {}),
    ...(timeoutSeconds ? { timeout_seconds: timeoutSeconds } : {}),
    ...(found ? { session_id: found.sessionId } : {}),
  };
  const { component, answer } = await placeTask({
    ...place,
    candidates: () => candidates(agent, found?.lastUrl),
    send: (client) => client.submit(request, call),
  });
  return remember(director, {
    url: component.url,
    name: component.status?.name,
    taskId: answer.task_id,
    sessionId: answer.session_id,
    how: found ? 'resumed' : 'started',
  });
}

async function endSession(
  director: DirectorContext,
  session: string,
): Promise<{ location: SessionLocation; answer: EndResponse | undefined }> {
  const { sessionId, location, lastUrl } = await director.sessionOf(session);
  if (!location) {
    throw new AgencyError(
      'invalid_argument',
      `No worker knows session ${sessionId} any more (its last task was on ${lastUrl}).`,
    );
  }
  if (location.state === 'idle')
    return { location, answer: await director.clientFor(location.url).end(location.taskId) };
  if (isFinal(location.state)) return { location, answer: undefined };
  throw new AgencyError(
    'agent_busy',
    `Session ${sessionId} is still ${location.state} (${location.taskId} on ${location.url}); end it when its turn is over.`,
  );
}

/** A CLI director. */
export type CliDirector = ReturnType<typeof createCliDirector>;
