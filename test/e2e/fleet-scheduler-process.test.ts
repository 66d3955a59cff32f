// The scheduler director as a real `agency director` process with a real `agency worker` (scripted executor): a
// schedule PUT over HTTP takes effect at the next minute without a restart, and a director killed with SIGKILL in
// the middle of a run resumes it from state.json on restart without handing its slot out twice.
import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.ts';
import { type DirectorProcess, startDirectorProcess } from '../support/director-process.ts';
import { startWorkerProcess, workerRoot, type WorkerProcess } from '../support/worker-process.ts';

type Director = DirectorProcess;
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

async function startDirector(root: string, name: string): Promise<Director> {
  const director = await startDirectorProcess(root, name);
  children.push(director.child);
  return director;
}

async function get<T = Record<string, unknown>>(url: string): Promise<T> {
  return (await (await fetch(url)).json()) as T;
}

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Entry = { id: string; state: string; task: { task_id: string } | null; result: { output: string } | null };

async function setup(): Promise<{ root: string; worker: WorkerProcess; workdir: string }> {
  const root = await workerRoot('w1', '');
  const workdir = join(root, 'projects', 'app');
  await mkdir(workdir, { recursive: true });
  const config = `port: 9000\nexecutor: claude\nsandbox:\n  read_write_paths: [${join(root, 'projects')}]\n`;
  await writeFile(join(root, 'agents/w1/config.yaml'), config);
  const worker = await startWorkerProcess('w1', root);
  children.push(worker.child);
  await mkdir(join(root, 'directors/sched'), { recursive: true });
  await writeFile(
    join(root, 'directors/sched/config.yaml'),
    [
      '# The nightly jobs.',
      'type: scheduler',
      'name: sched',
      'port: 9150',
      'discovery:',
      '  method: static',
      `  static: [${worker.url}]  # the one worker`,
      'schedule: []',
      '',
    ].join('\n'),
  );
  return { root, worker, workdir };
}

describe('agency director (scheduler), the process', () => {
  it('applies a PUT /schedule at the next minute, and resumes a run after a kill -9 without running it twice', async () => {
    const { root, worker, workdir } = await setup();
    const first = await startDirector(root, 'sched');
    expect(await get(`${first.url}/status`)).toMatchObject({ type: 'director', name: 'sched', state: 'idle' });
    const bad = await fetch(`${first.url}/schedule`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ schedule: [], extra: true }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('extra');
    const put = await fetch(`${first.url}/schedule`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ schedule: [{ name: 'tick', cron: '* * * * *', prompt: 'sleep 4000', workdir }] }),
    });
    expect(put.status).toBe(200);
    const file = await readFile(join(root, 'directors/sched/config.yaml'), 'utf8');
    expect(file).toContain('# The nightly jobs.');
    expect(file).toContain('# the one worker');
    expect(file).toContain('cron: "* * * * *"');

    // The next minute's run starts without a restart; kill the director while it runs.
    const running = await waitFor('the first run', async () => {
      const page = await get<{ items: Entry[] }>(`${first.url}/history`);
      return page.items.find((entry) => entry.state === 'running');
    });
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startDirector(root, 'sched');
    const done = await waitFor('the resumed run', async () => {
      const entry = await get<Entry>(`${second.url}/history/${encodeURIComponent(running.id)}`);
      return entry.state === 'completed' ? entry : undefined;
    });
    expect(done.task?.task_id).toBe(running.task?.task_id);
    expect(done.result?.output).toBe('slept 4000');
    const tasks = await worker.json<{ items: Array<{ started_at: string }> }>('/history?limit=100');
    const slot = Date.parse(running.id.split('@')[1]!);
    // One task for that slot: none other started before the next one.
    expect(tasks.items.filter((task) => Date.parse(task.started_at) < slot + 60_000)).toHaveLength(1);
    // The new director names its worker once its discovery has polled it, which the resumed run does not wait for.
    const agents = await waitFor('the worker polled by the new director', async () => {
      const page = await get<{ items: Array<{ name: string | null; url: string }> }>(`${second.url}/agents`);
      return page.items.some((agent) => agent.name !== null) ? page : undefined;
    });
    expect(agents.items).toEqual([expect.objectContaining({ name: 'w1', url: worker.url })]);
    const state = JSON.parse(await readFile(join(root, 'directors/sched/state.json'), 'utf8')) as {
      state: { runs: unknown[]; last_slots: Record<string, string> };
    };
    expect(state.state.last_slots.tick).toBeDefined();
    const added = await fetch(`${second.url}/schedule/task`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'tick', cron: '0 2 * * *', prompt: 'x', workdir }),
    });
    expect(added.status).toBe(409);
    // Its /status names its process, as a worker's does (what agency kill signals).
    const status = await get<{ config: { pid: number } }>(`${second.url}/status`);
    expect(status.config.pid).toBe(second.child.pid);
    // The fleet commands see it like any other component, and stop it.
    const fleet = await cli(['fleet', '--json', '--url', second.url, '--ports', '1-1']);
    expect(JSON.parse(fleet.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ url: second.url, type: 'director', name: 'sched' })]),
    );
    const shutdown = await cli(['shutdown', '--directors', '--url', second.url, '--ports', '1-1']);
    expect(shutdown.code, shutdown.stderr).toBe(0);
    expect(await second.exited).toBe(0);
  }, 150_000);
});
