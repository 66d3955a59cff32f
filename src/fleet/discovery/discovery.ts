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
export function createDiscovery(options: DiscoveryOptions = {}): Discovery {
  const state = discoveryState(options);
  const { known, pollTimers, timers, inFlight } = state;
  return {
    async refresh() {
      const before = [...known.keys()];
      await track(state, Promise.all([scan(state), ...before.map((url) => pollOnce(state, url))]));
      for (const url of before) schedulePoll(state, url);
      return list(state);
    },
    start() {
      if (state.running) return;
      state.running = true;
      scanLoop(state);
      for (const url of known.keys()) void track(state, pollOnce(state, url)).then(() => schedulePoll(state, url));
    },
    stop() {
      state.running = false;
      timers.clearTimeout(state.scanTimer);
      for (const handle of pollTimers.values()) timers.clearTimeout(handle);
      pollTimers.clear();
    },
    components: () => list(state),
    async poll(url) {
      const next = await track(state, pollOnce(state, url));
      schedulePoll(state, url);
      return next;
    },
    async settled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    ignored: () => state.ignored,
  };
}

// The options with their defaults, and what a discovery keeps between scans and polls.
function discoveryState({
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
}: DiscoveryOptions) {
  const known = new Map<string, Component>();
  for (const url of urls) {
    const origin = staticUrl(url);
    known.set(origin, newComponent(origin, 'static', timers.now()));
  }
  return {
    host,
    ports,
    scanIntervalMs,
    intervals: { idleMs: idleIntervalMs, workingMs: workingIntervalMs },
    connectTimeoutMs,
    concurrency,
    timers,
    probe,
    clientFor,
    onChange,
    known,
    pollTimers: new Map<string, unknown>(),
    inFlight: new Set<Promise<unknown>>(),
    /** Open ports whose `/status` is not a component's, and why. */
    ignored: new Map<string, string>(),
    clients: new Map<string, WorkerClient>(),
    scanTimer: undefined as unknown,
    running: false,
  };
}
type DiscoveryState = ReturnType<typeof discoveryState>;

function client(state: DiscoveryState, url: string): WorkerClient {
  const { clients } = state;
  return clients.get(url) ?? clients.set(url, state.clientFor(url)).get(url)!;
}

// Keeps a promise in flight until it settles, for `settled()`.
function track<T>(state: DiscoveryState, promise: Promise<T>): Promise<T> {
  state.inFlight.add(promise);
  void promise.finally(() => state.inFlight.delete(promise)).catch(() => undefined);
  return promise;
}

function list(state: DiscoveryState): Component[] {
  return [...state.known.values()].sort((a, b) => (portOf(a) ?? 0) - (portOf(b) ?? 0) || a.url.localeCompare(b.url));
}

function update(state: DiscoveryState, next: Component): void {
  const before = state.known.get(next.url);
  state.known.set(next.url, next);
  if (!before || fingerprint(before) !== fingerprint(next)) state.onChange?.(list(state));
}

async function pollOnce(state: DiscoveryState, url: string): Promise<Component | undefined> {
  if (!state.known.has(url)) return undefined;
  let result: Parameters<typeof afterPoll>[1];
  try {
    result = { ok: true, status: await client(state, url).status() };
  } catch (error) {
    result = { ok: false, error: errorMessage(error) };
  }
  const current = state.known.get(url);
  if (!current) return undefined;
  const next = afterPoll(current, result, state.timers.now());
  update(state, next);
  return next;
}

// The next poll of a component, at its pace (`pollInterval`), while the discovery runs.
function schedulePoll(state: DiscoveryState, url: string): void {
  const { known, pollTimers, timers } = state;
  const component = known.get(url);
  if (!state.running || !component) return;
  timers.clearTimeout(pollTimers.get(url));
  pollTimers.set(
    url,
    timers.setTimeout(
      () => {
        pollTimers.delete(url);
        void track(state, pollOnce(state, url)).then(() => schedulePoll(state, url));
      },
      pollInterval(component, state.intervals),
    ),
  );
}

// Scans the port range; each open port not known yet is asked its `/status`: a component, or ignored with why.
async function scan(state: DiscoveryState): Promise<void> {
  const { host, ports, concurrency, connectTimeoutMs, probe, known, ignored, timers } = state;
  if (!ports) return;
  const open = await scanPorts({ host, ports, concurrency, connectTimeoutMs, ...(probe ? { probe } : {}) });
  await Promise.all(
    open.map(async (port) => {
      const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
      if (known.has(url)) return;
      try {
        const status = await client(state, url).status();
        ignored.delete(url);
        update(state, afterPoll(newComponent(url, 'scan', timers.now()), { ok: true, status }, timers.now()));
        schedulePoll(state, url);
      } catch (error) {
        ignored.set(url, errorMessage(error));
      }
    }),
  );
}

function scanLoop(state: DiscoveryState): void {
  if (!state.running) return;
  void track(state, scan(state)).finally(() => {
    if (state.running) state.scanTimer = state.timers.setTimeout(() => scanLoop(state), state.scanIntervalMs);
  });
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
