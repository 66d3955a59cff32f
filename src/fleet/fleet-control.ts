import { sleep, systemTimers, type Timers } from '../core/clock.ts';
import { AgencyError } from '../core/errors.ts';
import { isAlive, processStartedAt } from '../task/lock.ts';
import type { ShutdownResponse } from './api/worker-schemas.ts';
import { type Component, kindOf, portOf } from './discovery/component.ts';
import type { WorkerClient } from './worker-client.ts';

/** Which components a fleet command acts on. */
export type Selector = { all?: boolean; agents?: boolean; directors?: boolean; port?: number };

/**
 * The components `selector` names, among those that answered: `agents` (type `agent`), `directors` (the others:
 * directors, helpers, views), one `port`, or `all`.
 */
export function selectComponents(components: readonly Component[], selector: Selector): Component[] {
  return components.filter((component) => {
    if (component.status === undefined) return false;
    if (selector.port !== undefined) return portOf(component) === selector.port;
    if (selector.all) return true;
    const agent = kindOf(component) === 'agent';
    return (selector.agents === true && agent) || (selector.directors === true && !agent);
  });
}

/** How one component answered `POST /shutdown`. */
export type ShutdownOutcome = { component: Component } & (
  { ok: true; answer: ShutdownResponse } | { ok: false; error: AgencyError }
);

/** Asks each component to shut down (drain, then exit), all at once, and collects every answer. */
export async function shutdownComponents(
  components: readonly Component[],
  {
    clientFor,
    force,
    timeoutSeconds,
  }: { clientFor: (url: string) => WorkerClient; force?: boolean; timeoutSeconds?: number },
): Promise<ShutdownOutcome[]> {
  const request = {
    ...(force ? { force } : {}),
    ...(timeoutSeconds === undefined ? {} : { timeout_seconds: timeoutSeconds }),
  };
  return Promise.all(
    components.map(async (component): Promise<ShutdownOutcome> => {
      try {
        return { component, ok: true, answer: await clientFor(component.url).shutdown(request) };
      } catch (error) {
        return { component, ok: false, error: AgencyError.from(error) };
      }
    }),
  );
}

/** What became of one component's process. */
export type KillOutcome = {
  component: Component;
  pid: number | undefined;
  /** `terminated`: gone after SIGTERM; `killed`: needed SIGKILL; `gone`: not running; `skipped`: see `detail`. */
  result: 'terminated' | 'killed' | 'gone' | 'skipped';
  detail: string;
};

/** Options of {@link killComponents}. */
export type KillOptions = {
  /** How long after SIGTERM before SIGKILL. @default 5000 */
  graceMs?: number;
  timers?: Timers;
};

/**
 * SIGTERM to each component's process, then SIGKILL to those still running `graceMs` later. A component's pid is the
 * one its `/status` reports (`config.pid`). Only components on this host (a loopback URL) are signalled, and on Linux
 * only a process whose start time matches the component's uptime, so a reused pid is never hit.
 */
export async function killComponents(
  components: readonly Component[],
  { graceMs = 5000, timers = systemTimers }: KillOptions = {},
): Promise<KillOutcome[]> {
  return Promise.all(
    components.map(async (component): Promise<KillOutcome> => {
      const pid = await pidOf(component, timers.now());
      if (typeof pid === 'string') return { component, pid: undefined, result: 'skipped', detail: pid };
      if (!isAlive(pid)) return { component, pid, result: 'gone', detail: `pid ${pid} is not running` };
      process.kill(pid, 'SIGTERM');
      for (let waited = 0; waited < graceMs; waited += 50) {
        await sleep(50, undefined, timers);
        if (!isAlive(pid)) return { component, pid, result: 'terminated', detail: `pid ${pid} ended on SIGTERM` };
      }
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      return { component, pid, result: 'killed', detail: `pid ${pid} killed with SIGKILL after ${graceMs / 1000} s` };
    }),
  );
}

/** The pid of a component's process, from its `/status` (`config.pid`), or why there is none to signal. */
export async function pidOf(component: Component, now: number): Promise<number | string> {
  const { status } = component;
  if (!status) return 'it has never answered, so its process is unknown';
  if (!isLoopback(component.url)) return `it is not on this host (${component.url})`;
  const pid = status.config.pid;
  if (!Number.isInteger(pid) || (pid as number) <= 1) return 'its /status reports no pid (config.pid)';
  if (pid === process.pid) return `pid ${pid} is this process`;
  const started = await processStartedAt(pid as number);
  const expected = now - status.uptime_seconds * 1000;
  if (started !== undefined && Math.abs(started - expected) > 10_000) {
    return `pid ${pid} started at ${new Date(started).toISOString()}, not when the component did; not signalled`;
  }
  return pid as number;
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
