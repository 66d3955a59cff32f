import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { WorkerStatus } from './api/worker-schemas.ts';
import { afterPoll, type Component, newComponent } from './discovery/component.ts';
import { killComponents, pidOf, selectComponents } from './fleet-control.ts';

function component(
  url: string,
  {
    type = 'agent',
    name = 'w',
    config = {},
    uptime = 0,
  }: { type?: WorkerStatus['type']; name?: string; config?: Record<string, unknown>; uptime?: number } = {},
): Component {
  const status: WorkerStatus = {
    type,
    interfaces: ['statusable'],
    name,
    version: '1',
    state: 'idle',
    uptime_seconds: uptime,
    current_task: null,
    config,
    log: [],
  };
  return afterPoll(newComponent(url, 'scan', 0), { ok: true, status }, 0);
}

// A process that ignores SIGTERM, as a worker stuck in a task might; `uptime` is its age as a component would say.
async function stubborn(): Promise<{ pid: number; started: number; ended: Promise<string | null> }> {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    ['-e', 'process.on("SIGTERM", () => {}); console.log("up"); setInterval(() => {}, 1000)'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  await new Promise((resolve) => child.stdout.once('data', resolve));
  const ended = new Promise<string | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  return { pid: child.pid!, started, ended };
}

describe('fleet control', () => {
  it('selects agents, directors (and helpers and views), one port, or all; never one that never answered', () => {
    const fleet = [
      component('http://127.0.0.1:9000', { name: 'a' }),
      component('http://127.0.0.1:9001', { type: 'director', name: 'gh' }),
      component('http://127.0.0.1:9002', { type: 'view', name: 'web' }),
      newComponent('http://127.0.0.1:9003', 'static', 0),
    ];
    const names = (selector: Parameters<typeof selectComponents>[1]) =>
      selectComponents(fleet, selector).map((chosen) => chosen.status?.name);
    expect(names({ agents: true })).toEqual(['a']);
    expect(names({ directors: true })).toEqual(['gh', 'web']);
    expect(names({ port: 9002 })).toEqual(['web']);
    expect(names({ all: true })).toEqual(['a', 'gh', 'web']);
  });

  it('takes the pid /status reports, and names why there is none to signal', async () => {
    const now = Date.now();
    const self = { config: { pid: process.pid }, uptime: Math.round(process.uptime()) };
    expect(await pidOf(component('http://127.0.0.1:9000', self), now)).toBe(`pid ${process.pid} is this process`);
    expect(await pidOf(component('http://10.0.0.5:9000', self), now)).toBe(
      'it is not on this host (http://10.0.0.5:9000)',
    );
    expect(await pidOf(newComponent('http://127.0.0.1:9000', 'scan', 0), now)).toBe(
      'it has never answered, so its process is unknown',
    );
    for (const pid of [undefined, 'not a pid', 1, 0, -5, 3.5])
      expect(await pidOf(component('http://127.0.0.1:9000', { config: { pid } }), now)).toBe(
        'its /status reports no pid (config.pid)',
      );
    const { pid, started } = await stubborn();
    try {
      const uptime = Math.round((Date.now() - started) / 1000);
      expect(await pidOf(component('http://127.0.0.1:9000', { config: { pid }, uptime }), Date.now())).toBe(pid);
      // The same pid, for a component that says it has run for an hour: the pid was reused by another process.
      const reused = await pidOf(component('http://127.0.0.1:9000', { config: { pid }, uptime: 3600 }), Date.now());
      expect(reused).toMatch(new RegExp(`^pid ${pid} started at .*, not when the component did; not signalled$`));
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  it('sends SIGTERM, then SIGKILL to a process still running after the grace period', async () => {
    const { pid, ended } = await stubborn();
    const [outcome] = await killComponents([component('http://127.0.0.1:9000', { config: { pid } })], {
      graceMs: 300,
    });
    expect([outcome?.result, outcome?.detail]).toEqual(['killed', `pid ${pid} killed with SIGKILL after 0.3 s`]);
    expect(await ended).toBe('SIGKILL');
    const [again] = await killComponents([component('http://127.0.0.1:9000', { config: { pid } })]);
    expect(again?.result).toBe('gone');
  });
});
