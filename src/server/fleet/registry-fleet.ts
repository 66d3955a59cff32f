// The server's fleet in fleet mode (AGENCY_DATABASE_URL set): the discovery fleet (port scan and static list, through
// which the server still calls workers by name) plus the workers of the PostgreSQL registry with the health of their
// heartbeats, read with the same query `agency fleet` uses. The registry is read every `pollMs` and on each
// `GET /agent/fleet`; a database that cannot be reached is a 503 there, and the last good read stays in the view.
import type { FleetRegistryView } from '../../api/fleet-schemas.ts';
import { errorMessage } from '../../core/errors.ts';
import { checkDatabaseUrl, databaseWhere, type FleetSettings, fleetSettingsFrom } from '../../fleet/queue/settings.ts';
import { createFleet, type Fleet, type FleetOptions } from './fleet.ts';
import { createWorkerClient, type WorkerClient } from '../../fleet/worker-client.ts';
import { createFleetQueue } from './fleet-queue.ts';
import { createFleetTaskFeed } from './fleet-task-feed.ts';
import { fetchWithTokens } from './worker-tokens.ts';

/** Options of {@link createRegistryFleet}. */
export type RegistryFleetOptions = {
  /** Between two reads of the registry, in ms. @default 2000 */
  pollMs?: number;
  /** A client for the URL of a worker holding a fleet task. @default one without a token */
  clientFor?: (url: string) => WorkerClient;
};

/**
 * The fleet of `agency serve`: with `AGENCY_DATABASE_URL` in `env`, {@link createFleet} plus the registry
 * ({@link createRegistryFleet}); otherwise {@link createFleet} alone.
 * @throws AgencyError `invalid_config` at once when a fleet variable or the database URL is malformed.
 */
export function createServerFleet(options: FleetOptions, env: NodeJS.ProcessEnv = process.env): Fleet {
  const settings = fleetSettingsFrom(env);
  const fleet = createFleet(options);
  if (!settings) return fleet;
  // A worker holding a fleet task is called at its registry URL, with the token kept for that URL (never another's).
  const send = options.tokens ? fetchWithTokens(options.tokens, options.fetch) : options.fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const clientFor = (url: string) => createWorkerClient(url, { timeoutMs, ...(send ? { fetch: send } : {}) });
  return createRegistryFleet(fleet, settings, { clientFor });
}

/**
 * `discovery` with the registry of `settings.databaseUrl` in its view; the database is opened (not connected) now.
 * @throws AgencyError `invalid_config` naming `AGENCY_DATABASE_URL` when the URL is not a postgres:// URL
 */
export function createRegistryFleet(
  discovery: Fleet,
  settings: Pick<FleetSettings, 'databaseUrl'> & Partial<Pick<FleetSettings, 'executor' | 'rerunOnLoss'>>,
  { pollMs = 2000, clientFor = (url) => createWorkerClient(url) }: RegistryFleetOptions = {},
): Fleet {
  const url = settings.databaseUrl;
  checkDatabaseUrl(url);
  const queue = import('../../fleet/queue/index.ts');
  // One connection listens for the task feed; the others read the registry and the tasks' events.
  const opened = queue.then(({ openFleetDatabase }) =>
    openFleetDatabase(url, { poolSize: 4, applicationName: 'agency-serve' }),
  );
  const tasks = createFleetTaskFeed(
    queue.then(async ({ databaseUnreachable }) => ({
      pool: (await opened).pool,
      unreachable: (error: unknown) => databaseUnreachable(url, error),
    })),
  );
  const fleetQueue = createFleetQueue({
    opened,
    settings: { executor: settings.executor ?? 'builtin', rerunOnLoss: settings.rerunOnLoss ?? false },
    clientFor,
    databaseUrl: url,
  });
  const listeners = new Set<() => void>();
  let registry: FleetRegistryView = { database: databaseWhere(url), workers: [], error: null, checked_at: null };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const read = async (): Promise<FleetRegistryView> => {
    const { readRegistry } = await queue;
    const before = JSON.stringify({ ...registry, checked_at: null, workers: registry.workers.map(stable) });
    try {
      const workers = await readRegistry((await opened).pool, url);
      registry = { ...registry, workers, error: null, checked_at: new Date().toISOString() };
    } catch (error) {
      registry = { ...registry, error: errorMessage(error), checked_at: new Date().toISOString() };
      throw error;
    } finally {
      const after = JSON.stringify({ ...registry, checked_at: null, workers: registry.workers.map(stable) });
      if (after !== before) for (const listener of listeners) listener();
    }
    return registry;
  };
  const poll = () => {
    timer = setTimeout(() => {
      void read()
        .catch(() => undefined)
        .finally(() => {
          if (!closed) poll();
        });
    }, pollMs);
    timer.unref?.();
  };
  return {
    ...discovery,
    tasks,
    queue: fleetQueue,
    view: () => ({ ...discovery.view(), registry }),
    async read() {
      const fresh = await read();
      return { ...discovery.view(), registry: fresh };
    },
    subscribe(listener) {
      listeners.add(listener);
      const off = discovery.subscribe(listener);
      return () => {
        listeners.delete(listener);
        off();
      };
    },
    start() {
      discovery.start();
      void read().catch(() => undefined);
      poll();
    },
    close() {
      closed = true;
      clearTimeout(timer);
      listeners.clear();
      discovery.close();
      void Promise.all([tasks.close(), fleetQueue.close()])
        .catch(() => undefined)
        .then(() => opened)
        .then((db) => db.close())
        .catch(() => undefined);
    },
  };
}

// A worker as it changes: its heartbeat's age and time move on every read, its health and state only on a change.
function stable(worker: FleetRegistryView['workers'][number]): unknown {
  const { heartbeat_age_seconds: _age, last_heartbeat: _last, ...rest } = worker;
  return rest;
}
