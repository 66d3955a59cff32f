import type { WorkerStatus } from '../api/worker-schemas.ts';

/**
 * A component's health, from its last polls (seed 004, "Error UX"): `green` answers; `yellow` missed 1–2 polls in a
 * row and shows its last known status; `red` missed 3 or more and is "unreachable", still with its last known
 * status. The first good poll makes it green again.
 */
export type Health = 'green' | 'yellow' | 'red';

/** Failed polls in a row after which a component is red. */
export const RED_AFTER_FAILURES = 3;

/** A component discovery knows of: where it is, what it last said, and how its polls went. */
export type Component = {
  /** Its origin, e.g. `http://127.0.0.1:9001`. */
  url: string;
  /** Found by the port scan, or named in the static list. */
  source: 'scan' | 'static';
  /** Its last good `/status`; undefined until one arrives. */
  status: WorkerStatus | undefined;
  health: Health;
  /** Failed polls in a row. */
  failures: number;
  /** Why the last poll failed, while it is failing. */
  error: string | undefined;
  /** When it last answered (ms since the epoch). */
  seenAt: number | undefined;
  /** When it was last polled. */
  checkedAt: number;
};

/** A component not yet polled: green only once it answers. */
export function newComponent(url: string, source: Component['source'], now: number): Component {
  return {
    url,
    source,
    status: undefined,
    health: 'green',
    failures: 0,
    error: undefined,
    seenAt: undefined,
    checkedAt: now,
  };
}

/** The component after a poll: a good one resets it to green, a failed one counts towards yellow and red. */
export function afterPoll(
  component: Component,
  result: { ok: true; status: WorkerStatus } | { ok: false; error: string },
  now: number,
): Component {
  if (result.ok) {
    return {
      ...component,
      status: result.status,
      health: 'green',
      failures: 0,
      error: undefined,
      seenAt: now,
      checkedAt: now,
    };
  }
  const failures = component.failures + 1;
  return { ...component, health: healthAfter(failures), failures, error: result.error, checkedAt: now };
}

/** The health after `failures` failed polls in a row. */
export function healthAfter(failures: number): Health {
  return failures === 0 ? 'green' : failures < RED_AFTER_FAILURES ? 'yellow' : 'red';
}

/** What a component is, by its `type`: agents run tasks; directors, helpers and views give or watch them. */
export function kindOf(component: Component): WorkerStatus['type'] | 'unknown' {
  return component.status?.type ?? 'unknown';
}

/** True for an agent that takes tasks (`type: agent` with the `taskable` interface). */
export function isTaskableAgent(component: Component): boolean {
  return component.status?.type === 'agent' && component.status.interfaces.includes('taskable');
}

/** True for a taskable agent that answered its last poll and is idle: a task sent now should be taken. */
export function isIdleWorker(component: Component): boolean {
  return isTaskableAgent(component) && component.health === 'green' && component.status?.state === 'idle';
}

/**
 * How soon to poll a component again (seed 004, "Scalability"): every second while it works (or starts or stops,
 * so the change is seen soon), every 5 s while idle. A component that stops answering keeps the pace of its last
 * known state, so a working one that died turns red within about 3 s.
 */
export function pollInterval(
  component: Component,
  { idleMs, workingMs }: { idleMs: number; workingMs: number },
): number {
  const state = component.status?.state;
  return state !== undefined && state !== 'idle' ? workingMs : idleMs;
}

/** The port of a component's URL, for sorting and for `--port`. */
export function portOf(component: Pick<Component, 'url'>): number | undefined {
  const url = new URL(component.url);
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return Number.isInteger(port) ? port : undefined;
}

/** A component named by its URL, its `name`, or its port: what `--agent` takes. */
export function findComponent(components: readonly Component[], wanted: string): Component | undefined {
  const asUrl = /^https?:\/\//.test(wanted) ? new URL(wanted).origin : undefined;
  return components.find(
    (component) =>
      (asUrl !== undefined && new URL(component.url).origin === asUrl) ||
      component.status?.name === wanted ||
      (/^\d+$/.test(wanted) && portOf(component) === Number(wanted)),
  );
}

/** A component as JSON: what `agency fleet --json` prints, and what the server's fleet routes build on. */
export function componentJson(component: Component) {
  const { status } = component;
  return {
    name: status?.name ?? null,
    type: status?.type ?? null,
    interfaces: status?.interfaces ?? [],
    url: component.url,
    source: component.source,
    state: status?.state ?? null,
    health: component.health,
    failures: component.failures,
    error: component.error ?? null,
    version: status?.version ?? null,
    uptime_seconds: status?.uptime_seconds ?? null,
    current_task: status?.current_task ?? null,
  };
}
