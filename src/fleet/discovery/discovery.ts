import { systemTimers, type Timers } from '../../core/clock.ts';
import { AgencyError, errorMessage } from '../../core/errors.ts';
import { createWorkerClient, type WorkerClient } from '../worker-client.ts';
import { afterPoll, type Component, newComponent, pollInterval, portOf } from './component.ts';
import { DEFAULT_PORTS, type PortRange, type Probe, scanPorts } from './port-scan.ts';

/** Options of {@link createDiscovery}. */
export type DiscoveryOptions = {
  /** The host the port range is scanned on. @default '127.0.0.1' */
  host?: string;
  /** The ports scanned; `null` scans none (the static list only). @default 9000–9199 */
  ports?: PortRange | null;
  /** Components at known URLs, polled whether or not they answer. @default [] */
  urls?: readonly string[];
  /** How often a running discovery scans the range again for new components. @default 5000 */
  scanIntervalMs?: number;
  /** How often an idle component is polled. @default 5000 */
  idleIntervalMs?: number;
  /** How often a working (or starting, or stopping) component is polled. @default 1000 */
  workingIntervalMs?: number;
  /** How long a port may take to accept a connection. @default 250 */
  connectTimeoutMs?: number;
  /** How long `/status` may take to answer. @default 2000 */
  statusTimeoutMs?: number;
  /** Ports probed at once. @default 32 */
  concurrency?: number;
  /** @default the real timers */
  timers?: Timers;
  /** @default a TCP connect */
  probe?: Probe;
  /** The client of a component's URL. @default createWorkerClient with `statusTimeoutMs` */
  clientFor?: (url: string) => WorkerClient;
  /** Called with every component whenever one is found, or changes health, state or task. */
  onChange?: (components: Component[]) => void;
};

/** Finds components (a port scan plus a static list) and keeps their status and health current. */
export type Discovery = {
  /** Scans now and polls every known component now; resolves with what is known then. */
  refresh(): Promise<Component[]>;
  /** Keeps scanning and polling, adaptively, until `stop()`. */
  start(): void;
  stop(): void;
  components(): Component[];
  /** Polls one component now (e.g. after sending it a task). */
  poll(url: string): Promise<Component | undefined>;
  /** Resolves once no scan or poll is in flight. */
  settled(): Promise<void>;
  /** Open ports in the range whose `/status` is not a component's, and why. */
  ignored(): ReadonlyMap<string, string>;
};

/**
 * A discovery of the components on one host (seed 004, "Discovery Protocol"): the port range of `host`, scanned
 * again every `scanIntervalMs`, and a static list of URLs; each component's `/status` polled every second while it
 * works and every 5 s while idle, its health counted from failed polls (`component.ts`). Components are never
 * dropped for failing: they turn red and keep their last known status.
 *
 * @example
 * const discovery = createDiscovery({ urls: ['http://10.0.0.5:9000'] });
 * const idle = (await discovery.refresh()).filter(isIdleWorker);
 */
export function createDiscovery({
  host = '127.0.0.1',
  ports = DEFAULT_PORTS,
  urls = [],
  scanIntervalMs = 5000,
  idleIntervalMs = 5000,
  workingIntervalMs = 1000,
  connectTimeoutMs = 250,
  statusTimeoutMs = 2000,
  concurrency = 32,
  timers = systemTimers,
  probe,
  clientFor = (url) => createWorkerClient(url, { timeoutMs: statusTimeoutMs }),
  onChange,
}: DiscoveryOptions = {}): Discovery {
  const known = new Map<string, Component>();
  const pollTimers = new Map<string, unknown>();
  const inFlight = new Set<Promise<unknown>>();
  const ignored = new Map<string, string>();
  const clients = new Map<string, WorkerClient>();
  let scanTimer: unknown;
  let running = false;
  for (const url of urls) {
    const origin = staticUrl(url);
    known.set(origin, newComponent(origin, 'static', timers.now()));
  }

  const client = (url: string) => clients.get(url) ?? clients.set(url, clientFor(url)).get(url)!;
  const track = <T>(promise: Promise<T>): Promise<T> => {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise)).catch(() => undefined);
    return promise;
  };
  const list = () =>
    [...known.values()].sort((a, b) => (portOf(a) ?? 0) - (portOf(b) ?? 0) || a.url.localeCompare(b.url));
  const update = (next: Component) => {
    const before = known.get(next.url);
    known.set(next.url, next);
    if (!before || fingerprint(before) !== fingerprint(next)) onChange?.(list());
  };

  async function pollOnce(url: string): Promise<Component | undefined> {
    if (!known.has(url)) return undefined;
    let result: Parameters<typeof afterPoll>[1];
    try {
      result = { ok: true, status: await client(url).status() };
    } catch (error) {
      result = { ok: false, error: errorMessage(error) };
    }
    const current = known.get(url);
    if (!current) return undefined;
    const next = afterPoll(current, result, timers.now());
    update(next);
    return next;
  }

  function schedulePoll(url: string): void {
    const component = known.get(url);
    if (!running || !component) return;
    timers.clearTimeout(pollTimers.get(url));
    const ms = pollInterval(component, { idleMs: idleIntervalMs, workingMs: workingIntervalMs });
    pollTimers.set(
      url,
      timers.setTimeout(() => {
        pollTimers.delete(url);
        void track(pollOnce(url)).then(() => schedulePoll(url));
      }, ms),
    );
  }

  async function scan(): Promise<void> {
    if (!ports) return;
    const open = await scanPorts({ host, ports, concurrency, connectTimeoutMs, ...(probe ? { probe } : {}) });
    await Promise.all(
      open.map(async (port) => {
        const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
        if (known.has(url)) return;
        try {
          const status = await client(url).status();
          ignored.delete(url);
          update(afterPoll(newComponent(url, 'scan', timers.now()), { ok: true, status }, timers.now()));
          schedulePoll(url);
        } catch (error) {
          ignored.set(url, errorMessage(error));
        }
      }),
    );
  }

  function scanLoop(): void {
    if (!running) return;
    void track(scan()).finally(() => {
      if (running) scanTimer = timers.setTimeout(scanLoop, scanIntervalMs);
    });
  }

  return {
    async refresh() {
      const before = [...known.keys()];
      await track(Promise.all([scan(), ...before.map((url) => pollOnce(url))]));
      for (const url of before) schedulePoll(url);
      return list();
    },
    start() {
      if (running) return;
      running = true;
      scanLoop();
      for (const url of known.keys()) void track(pollOnce(url)).then(() => schedulePoll(url));
    },
    stop() {
      running = false;
      timers.clearTimeout(scanTimer);
      for (const handle of pollTimers.values()) timers.clearTimeout(handle);
      pollTimers.clear();
    },
    components: list,
    async poll(url) {
      const next = await track(pollOnce(url));
      schedulePoll(url);
      return next;
    },
    async settled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    ignored: () => ignored,
  };
}

// What a view shows of a component, without its uptime and log: a change of one of these is worth telling.
function fingerprint(component: Component): string {
  const { status } = component;
  return `${component.health}|${component.failures}|${status?.name}|${status?.state}|${status?.current_task?.id}`;
}

function staticUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AgencyError('invalid_argument', `"${url}" is not a URL; write http://HOST:PORT`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new AgencyError('invalid_argument', `"${url}": only http:// and https:// workers are supported`);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}
