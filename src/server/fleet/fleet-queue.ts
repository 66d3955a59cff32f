// The server's hand into the fleet's queue (AGENCY_DATABASE_URL): a task posted to `POST /agent/fleet/tasks` goes
// through the queue dispatch `agency task` and every director use, to the first idle worker whose executor matches,
// on any host. Its next turn, its end and its cancel go to the worker that holds it, at that worker's URL in the
// registry, with the token the server keeps for it; a task still queued is cancelled in the database.
import type { FleetQueueRequest } from '../../api/fleet-schemas.ts';
import type { DispatchedTask } from '../../fleet/directors/task-dispatch.ts';
import type { FleetDatabase, FleetSettings, QueueDispatch } from '../../fleet/queue/index.ts';
import type { WorkerClient } from '../../fleet/worker-client.ts';
import { callWorker } from './fleet-errors.ts';

/** A fleet task's verbs through the server. */
export type FleetTaskVerb = 'cancel' | 'continue' | 'end';

/** What a verb answers: the task's state after it, and cancel's message or end's output. */
export type FleetTaskAction = { task_id: string; state: string; message?: string; output?: string | null };

/** The fleet's queue as the server uses it. */
export type FleetQueue = {
  /** Queues the task; resolves once it is in the queue (not when a worker takes it). */
  submit(request: FleetQueueRequest): Promise<DispatchedTask>;
  act(taskId: string, verb: FleetTaskVerb, prompt?: string): Promise<FleetTaskAction>;
  close(): Promise<void>;
};

/** Options of {@link createFleetQueue}. */
export type FleetQueueOptions = {
  /** The fleet database, opened; it is migrated (and pg-boss started) on the first call. */
  opened: Promise<FleetDatabase>;
  settings: Pick<FleetSettings, 'executor' | 'rerunOnLoss'>;
  /** A client for a worker's URL, carrying that worker's token. */
  clientFor: (url: string) => WorkerClient;
  /** The database's URL: a failed connection is AgencyError `network_failed` naming it (never its password). */
  databaseUrl: string;
};

/** A {@link FleetQueue}; `pg` and `pg-boss` are loaded on the first call. */
export function createFleetQueue({ opened, settings, clientFor, databaseUrl }: FleetQueueOptions): FleetQueue {
  const queue = import('../../fleet/queue/index.ts');
  let dispatch: Promise<{ db: FleetDatabase; dispatch: QueueDispatch }> | undefined;
  const ready = () =>
    (dispatch ??= (async () => {
      const [{ createQueueDispatch }, db] = await Promise.all([queue, opened]);
      await db.migrate();
      const { executor, rerunOnLoss } = settings;
      return { db, dispatch: createQueueDispatch({ db, executor, rerunOnLoss, untilTaken: false, clientFor }) };
    })().catch((error: unknown) => {
      dispatch = undefined;
      throw error;
    }));
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw (await queue).databaseUnreachable(databaseUrl, error);
    }
  };
  return {
    submit: ({ labels, ...request }) =>
      guard(async () => (await ready()).dispatch.dispatch({ ...request, ...(labels ? { labels } : {}) })),
    act: (taskId, verb, prompt = '') =>
      guard(async () => {
        const { db } = await ready();
        const { cancelQueuedTask, holderUrl, readTask } = await queue;
        if (verb === 'cancel' && (await cancelQueuedTask(db.pool, taskId)))
          return { task_id: taskId, state: 'cancelled', message: 'withdrawn from the queue before a worker took it' };
        const url = await holderUrl(db, taskId);
        const name = (await readTask(db.pool, taskId))?.worker ?? url;
        const client = clientFor(url);
        const call = (): Promise<FleetTaskAction> =>
          verb === 'continue'
            ? client.continue(taskId, prompt)
            : verb === 'end'
              ? client.end(taskId)
              : client.cancel(taskId);
        return callWorker(name, call);
      }),
    close: async () => {
      const held = dispatch;
      dispatch = undefined;
      await (await held?.catch(() => undefined))?.dispatch.close();
    },
  };
}
