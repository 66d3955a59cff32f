import type { ComponentDetail, ComponentView, FleetView } from '../../api/fleet-schemas.ts';
import { AgencyError } from '../../core/errors.ts';
import { type Component, componentJson, isTaskableAgent } from '../../fleet/discovery/component.ts';
import { createDiscovery, type DiscoveryOptions } from '../../fleet/discovery/discovery.ts';
import { DEFAULT_PORTS, type PortRange } from '../../fleet/discovery/port-scan.ts';
import { createWorkerClient, type FetchFunction, type WorkerClient } from '../../fleet/worker-client.ts';
import { fetchWithTokens, type WorkerTokens } from './worker-tokens.ts';
import type { FleetQueue } from './fleet-queue.ts';
import type { FleetTaskFeed } from './fleet-task-feed.ts';

/** Options for {@link createFleet}. */
export type FleetOptions = {
  /** The host whose ports are scanned. @default '127.0.0.1' */
  host?: string;
  /** The ports scanned; null scans none. @default 9000–9199 */
  ports?: PortRange | null;
  /** Components at known URLs, polled whether or not they answer. @default [] */
  urls?: readonly string[];
  /** The token to send each worker (never the server's own). @default none */
  tokens?: WorkerTokens;
  /** How long a call to a worker on a client's behalf may take before it is answered 504. @default 10000 */
  timeoutMs?: number;
  /** How long `/status` may take. @default 2000 */
  statusTimeoutMs?: number;
  /** The discovery's pace and clock (tests). */
  discovery?: Pick<
    DiscoveryOptions,
    'scanIntervalMs' | 'idleIntervalMs' | 'workingIntervalMs' | 'connectTimeoutMs' | 'timers'
  >;
  /** @default globalThis.fetch */
  fetch?: FetchFunction;
};

/** A taskable agent the server may call, and its client. */
export type FleetWorker = { name: string; component: Component; client: WorkerClient };

/**
 * The fleet as the server sees it: one long-lived discovery (a port scan plus a static list, polled adaptively), and
 * the only way the server reaches a worker. Workers are addressed by the name their `/status` reports; a name that
 * discovery has not found is refused, so no request can make the server call an address of its choosing.
 */
export type Fleet = {
  readonly enabled: boolean;
  /** Every component with its health, the scan and the static list (and the registry's workers, in fleet mode). */
  view(): FleetView;
  /**
   * The view, with what must be read now read now (the registry, in fleet mode).
   * @throws AgencyError `network_failed` when the fleet's database cannot be reached
   */
  read(): Promise<FleetView>;
  /** The component of that name, polled now. @throws AgencyError `no_worker` */
  detail(name: string): Promise<ComponentDetail>;
  /** The taskable agent of that name. @throws AgencyError `no_worker` */
  worker(name: string): FleetWorker;
  /** Polls a component now (after a call changed it), so the feed shows the change at once. */
  refresh(url: string): void;
  /** Calls `listener` on every change a view shows (found, health, state, task); returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** The tasks of the fleet's database and their live events; only with AGENCY_DATABASE_URL. */
  tasks?: FleetTaskFeed | undefined;
  /** The fleet's queue, through which the server hands out tasks to any worker; only with AGENCY_DATABASE_URL. */
  queue?: FleetQueue | undefined;
  start(): void;
  close(): void;
};

/**
 * The fleet of `agency serve`: a discovery scanning `ports` of `host` and polling `urls`, whose calls to workers
 * carry each worker's own token (see `instanceTokens`) and never the caller's credentials.
 */
export function createFleet({
  host = '127.0.0.1',
  ports = DEFAULT_PORTS,
  urls = [],
  tokens,
  timeoutMs = 10_000,
  statusTimeoutMs = 2_000,
  discovery: pace = {},
  fetch,
}: FleetOptions = {}): Fleet {
  const listeners = new Set<() => void>();
  const send = tokens ? fetchWithTokens(tokens, fetch) : fetch;
  const clientOf = (url: string, ms: number) =>
    createWorkerClient(url, { timeoutMs: ms, ...(send ? { fetch: send } : {}) });
  const discovery = createDiscovery({
    host,
    ports,
    urls,
    statusTimeoutMs,
    ...pace,
    clientFor: (url) => clientOf(url, statusTimeoutMs),
    onChange: () => {
      for (const listener of listeners) listener();
    },
  });
  const clients = new Map<string, WorkerClient>();
  const named = (name: string) => namedComponent(discovery.components(), name);
  const view = (): FleetView => ({
    enabled: true,
    scan: ports ? { host, from: ports.from, to: ports.to } : null,
    urls: [...urls],
    components: discovery.components().map(componentView),
    ignored: [...discovery.ignored()].map(([url, reason]) => ({ url, reason })),
  });
  return {
    enabled: true,
    view,
    read: async () => view(),
    async detail(name) {
      const polled = (await discovery.poll(named(name).url)) ?? named(name);
      return { ...componentView(polled), config: polled.status?.config ?? null, log: polled.status?.log ?? [] };
    },
    worker(name) {
      const component = named(name);
      if (!isTaskableAgent(component))
        throw new AgencyError('no_worker', `"${name}" is a ${component.status?.type}, not a worker that takes tasks`, {
          details: { field: 'name', name },
        });
      const client = clients.get(component.url) ?? clientOf(component.url, timeoutMs);
      clients.set(component.url, client);
      return { name, component, client };
    },
    refresh(url) {
      void discovery.poll(url).catch(() => undefined);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start: () => discovery.start(),
    close() {
      discovery.stop();
      listeners.clear();
    },
  };
}

// The component whose `/status` reports that name. The same worker may be listed twice (a static URL of a scanned
// port): a green one is the better bet.
function namedComponent(components: readonly Component[], name: string): Component {
  const matches = components.filter((component) => component.status?.name === name);
  const found = matches.find((component) => component.health === 'green') ?? matches[0];
  if (found) return found;
  const known = components.map((component) => component.status?.name).filter(Boolean);
  throw new AgencyError(
    'no_worker',
    `No component named "${name}" was found${known.length > 0 ? ` (found: ${known.join(', ')})` : ''}; see GET /agent/fleet`,
    { details: { field: 'name', name } },
  );
}

/** The fleet of a server started without discovery: empty, and every worker route answers `no_worker`. */
export function disabledFleet(): Fleet {
  const off = () =>
    new AgencyError('no_worker', 'The fleet is off on this server: start agency serve without --no-fleet', {
      details: { field: 'name' },
    });
  const view = (): FleetView => ({ enabled: false, scan: null, urls: [], components: [], ignored: [] });
  return {
    enabled: false,
    view,
    read: async () => view(),
    detail: () => Promise.reject(off()),
    worker: () => {
      throw off();
    },
    refresh: () => undefined,
    subscribe: () => () => undefined,
    start: () => undefined,
    close: () => undefined,
  };
}

/** A component as the fleet routes show it. */
export function componentView(component: Component): ComponentView {
  const config = component.status?.config ?? {};
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    ...componentJson(component),
    executor: text(config.executor),
    model: text(config.model),
    taskable: isTaskableAgent(component),
    seen_at: component.seenAt === undefined ? null : new Date(component.seenAt).toISOString(),
    checked_at: new Date(component.checkedAt).toISOString(),
  };
}
