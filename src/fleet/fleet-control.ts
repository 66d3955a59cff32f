import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sleep, systemTimers, type Timers } from '../core/clock.ts';
import { errnoCode } from '../core/errno.ts';
import { AgencyError, errorMessage } from '../core/errors.ts';
import { isAlive, processStartedAt } from '../task/lock.ts';
import type { ShutdownAnswer } from './api/worker-answers.ts';
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
  { ok: true; answer: ShutdownAnswer } | { ok: false; error: AgencyError }
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
  agencyRoot: string;
  /** How long after SIGTERM before SIGKILL. @default 5000 */
  graceMs?: number;
  timers?: Timers;
};

/**
 * SIGTERM to each component's process, then SIGKILL to those still running `graceMs` later. A component's pid comes
 * from its `/status` (`config.pid`), else from its pid file (`<AGENCY_ROOT>/agents/<name>/agent.pid`, or
 * `directors/<name>/director.pid`). Only components on this host (a loopback URL) are signalled, and on Linux only
 * a process whose start time matches the component's uptime, so a stale pid file or a reused pid is never hit.
 */
export async function killComponents(
  components: readonly Component[],
  { agencyRoot, graceMs = 5000, timers = systemTimers }: KillOptions,
): Promise<KillOutcome[]> {
  return Promise.all(
    components.map(async (component): Promise<KillOutcome> => {
      const found = await pidOf(component, agencyRoot, timers.now());
      if (typeof found === 'string') return { component, pid: undefined, result: 'skipped', detail: found };
      const { pid, from } = found;
      if (!isAlive(pid)) return { component, pid, result: 'gone', detail: `pid ${pid} (${from}) is not running` };
      process.kill(pid, 'SIGTERM');
      for (let waited = 0; waited < graceMs; waited += 50) {
        await sleep(50, undefined, timers);
        if (!isAlive(pid))
          return { component, pid, result: 'terminated', detail: `pid ${pid} (${from}) ended on SIGTERM` };
      }
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      return {
        component,
        pid,
        result: 'killed',
        detail: `pid ${pid} (${from}) killed with SIGKILL after ${graceMs / 1000} s`,
      };
    }),
  );
}

/** The pid of a component's process and where it came from, or why there is none to signal. */
export async function pidOf(
  component: Component,
  agencyRoot: string,
  now: number,
): Promise<{ pid: number; from: string } | string> {
  const { status } = component;
  if (!status) return 'it has never answered, so its process is unknown';
  if (!isLoopback(component.url)) return `it is not on this host (${component.url})`;
  const reported = status.config.pid;
  let pid: number | undefined;
  let from: string;
  if (Number.isInteger(reported) && (reported as number) > 1) {
    pid = reported as number;
    from = '/status';
  } else {
    const file = join(
      agencyRoot,
      ...(status.type === 'agent' ? ['agents', status.name, 'agent.pid'] : ['directors', status.name, 'director.pid']),
    );
    from = file;
    try {
      const text = (await readFile(file, 'utf8')).trim();
      pid = /^\d+$/.test(text) && Number(text) > 1 ? Number(text) : undefined;
      if (pid === undefined) return `${file} does not hold a pid`;
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return `its /status has no config.pid, and there is no ${file}`;
      return `${file}: ${errorMessage(error)}`;
    }
  }
  if (pid === process.pid) return `pid ${pid} (${from}) is this process`;
  const started = await processStartedAt(pid);
  const expected = now - status.uptime_seconds * 1000;
  if (started !== undefined && Math.abs(started - expected) > 10_000) {
    return `pid ${pid} (${from}) started at ${new Date(started).toISOString()}, not when the component did; not signalled`;
  }
  return { pid, from };
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
