// The server's fleet routes against real `agency worker` processes (the scripted executor): the fleet with health, a
// session run, continued and ended through the server, history, a busy worker, cancel, the live feed, a worker found
// by the port scan, a worker bound beyond loopback reached with its own token, and a worker killed under the server.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetTask, FleetView } from '../../src/api/fleet-schemas.ts';
import { createSseParser } from '../../src/client/sse-parser.ts';
import { agencyRootAt } from '../../src/config/agency-root.ts';
import { instanceTokens } from '../../src/server/fleet/worker-tokens.ts';
import { type FleetServer, fleetServer } from '../support/fleet-server.ts';
import { TOKEN, until } from '../support/server-fixture.ts';
import { startWorkerProcess, type WorkerProcess, workerRoot } from '../support/worker-process.ts';

const CONFIG = 'port: 9000\nexecutor: claude\nmodel: sonnet\n';
let a: WorkerProcess;
let b: WorkerProcess;
let server: FleetServer;

beforeAll(async () => {
  [a, b] = await Promise.all([
    workerRoot('a', CONFIG).then((root) => startWorkerProcess('a', root)),
    workerRoot('b', CONFIG).then((root) => startWorkerProcess('b', root)),
  ]);
  server = await fleetServer({ urls: [a.url, b.url] });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await Promise.all([a?.kill('SIGTERM'), b?.kill('SIGTERM')]);
});

const post = (path: string, json: unknown = {}) => server.api(path, { method: 'POST', json });
const body = async <T = Record<string, unknown>>(response: Response | Promise<Response>) =>
  (await (await response).json()) as T;
const component = (view: FleetView, name: string) => view.components.find((item) => item.name === name);
const taskOn = (worker: string, id: string) =>
  body<FleetTask>(server.api(`/agent/fleet/workers/${worker}/tasks/${id}`));
const settled = (worker: string, id: string, states: string[]) =>
  until(async () => {
    const task = await taskOn(worker, id);
    return states.includes(task.state) ? task : undefined;
  }, 15_000);

describe('the fleet routes, against real workers', () => {
  it('lists both workers green and idle, with their executor, model and uptime; none of their config secrets', async () => {
    const view = await server.until((fleet) => fleet.components.every((item) => item.state === 'idle'));
    expect(view).toMatchObject({ enabled: true, scan: null, urls: [a.url, b.url], ignored: [] });
    // Listed in port order; the ports are free ones.
    const listed = view.components.map((item) => [item.name, item.health, item.source, item.taskable]);
    expect(listed.sort()).toEqual([
      ['a', 'green', 'static', true],
      ['b', 'green', 'static', true],
    ]);
    expect(component(view, 'a')).toMatchObject({ type: 'agent', executor: 'claude', model: 'sonnet', failures: 0 });
    const detail = await body(server.api('/agent/fleet/components/a'));
    expect(detail).toMatchObject({ name: 'a', config: { executor_version: 'scripted 1.0' } });
    expect((detail.log as Array<{ message: string }>).some((line) => line.message.startsWith('ready'))).toBe(true);
    const openapi = await body<{ paths: Record<string, unknown> }>(server.api('/openapi.json'));
    expect(Object.keys(openapi.paths).filter((path) => path.startsWith('/agent/fleet'))).toHaveLength(15);
  });

  it('runs a session through the server: submit, follow, continue, end; then its history', async () => {
    const created = await server.api('/agent/fleet/workers/a/tasks', {
      method: 'POST',
      json: { prompt: 'write first.txt', timeout_seconds: 60 },
    });
    expect(created.status).toBe(201);
    const { task_id: id, worker } = await body<{ task_id: string; worker: string }>(created);
    expect(worker).toBe('a');
    const idle = await settled('a', id, ['idle']);
    expect(idle).toMatchObject({ output: 'files: first.txt; resume=false', turns: 1, prompt: 'write first.txt' });
    expect(idle.log.some((line) => line.message.startsWith('scripted executor: write'))).toBe(true);
    expect(idle).not.toHaveProperty('stdout');

    expect(await body(post(`/agent/fleet/workers/a/tasks/${id}/continue`, { prompt: 'write second.txt' }))).toEqual({
      task_id: id,
      state: 'working',
    });
    expect(await settled('a', id, ['idle'])).toMatchObject({ output: 'files: first.txt,second.txt; resume=true' });
    expect(await body(post(`/agent/fleet/workers/a/tasks/${id}/end`))).toEqual({
      task_id: id,
      state: 'completed',
      output: 'files: first.txt,second.txt; resume=true',
    });
    const again = await server.api(`/agent/fleet/workers/a/tasks/${id}/end`, { method: 'POST', json: {} });
    expect([again.status, (await body(again)).error]).toEqual([409, 'already_completed']);

    const page = await body<{ items: Array<{ task_id: string; state: string }>; total: number }>(
      server.api('/agent/fleet/workers/a/history?page=1&limit=5'),
    );
    expect(page.items[0]).toMatchObject({ task_id: id, state: 'completed' });
    const record = await body(server.api(`/agent/fleet/workers/a/history/${id}`));
    expect(record).toMatchObject({ task_id: id, stdout: expect.stringContaining('"type":"result"') });
  });

  it('answers agent_busy for a busy worker, with its task, and cancels through the server', async () => {
    const { task_id: id } = await body<{ task_id: string }>(post('/agent/fleet/workers/b/tasks', { prompt: 'hang' }));
    const view = await server.until((fleet) => component(fleet, 'b')?.state === 'working');
    expect(component(view, 'b')?.current_task).toMatchObject({ id, prompt_preview: 'hang' });
    const busy = await post('/agent/fleet/workers/b/tasks', { prompt: 'another' });
    expect(busy.status).toBe(409);
    expect(await body(busy)).toMatchObject({
      error: 'agent_busy',
      details: { worker: 'b', current_task: id, retryable: true, agency_code: 'agent_busy' },
    });
    expect((await body(post(`/agent/fleet/workers/b/tasks/${id}/cancel`))).task_id).toBe(id);
    expect(await settled('b', id, ['cancelled'])).toMatchObject({ output: 'partial', error: { type: 'cancelled' } });
    await server.until((fleet) => component(fleet, 'b')?.state === 'idle');
  });

  it('streams the fleet: a snapshot at once, another when a worker starts working', async () => {
    const controller = new AbortController();
    const response = await server.api('/agent/fleet/events', {
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    const parser = createSseParser();
    const decoder = new TextDecoder();
    const next = async (): Promise<FleetView> => {
      for (;;) {
        const chunk = await reader.read();
        const events = parser.feed(decoder.decode(chunk.value, { stream: true }));
        const fleet = events.find((event) => event.kind === 'event' && event.event === 'fleet');
        if (fleet?.kind === 'event') return JSON.parse(fleet.data) as FleetView;
      }
    };
    expect((await next()).components.map((item) => item.name).sort()).toEqual(['a', 'b']);
    const { task_id: id } = await body<{ task_id: string }>(
      post('/agent/fleet/workers/a/tasks', { prompt: 'sleep 400' }),
    );
    let seen: FleetView;
    do seen = await next();
    while (component(seen, 'a')?.current_task?.id !== id);
    expect(component(seen, 'a')?.state).toBe('working');
    controller.abort();
    await settled('a', id, ['idle']);
    await post(`/agent/fleet/workers/a/tasks/${id}/end`);
  });
});

describe('the fleet routes, finding and reaching workers', () => {
  it('finds a worker by the port scan, and does not list a port that is not a component', async () => {
    const port = Number(new URL(a.url).port);
    const scanning = await fleetServer({ ports: { from: port, to: port } });
    try {
      const view = await scanning.until((fleet) => fleet.components.length === 1);
      expect(view.scan).toEqual({ host: '127.0.0.1', from: port, to: port });
      expect(view.components[0]).toMatchObject({ name: 'a', source: 'scan', health: 'green' });
    } finally {
      await scanning.close();
    }
  });

  it('reaches a worker bound beyond loopback with its own token file, and returns the token nowhere', async () => {
    const port = await freePort();
    const root = await workerRoot('far', `port: ${port}\nbind: 127.0.0.2\nexecutor: claude\n`);
    const far = await startWorkerProcess('far', root, { env: { AGENCY_TOKEN: '' }, args: ['--port', String(port)] });
    const token = (await readFile(join(root, 'agents/far/token'), 'utf8')).trim();
    const url = `http://127.0.0.2:${port}`;
    const withToken = await fleetServer({
      urls: [url],
      tokens: instanceTokens({ root: agencyRootAt(root), serverTokens: [TOKEN] }),
    });
    const without = await fleetServer({ urls: [url] });
    try {
      const view = await withToken.until((fleet) => fleet.components[0]?.state === 'idle');
      const { task_id: id } = await body<{ task_id: string }>(
        withToken.api('/agent/fleet/workers/far/tasks', { method: 'POST', json: { prompt: 'hello' } }),
      );
      const done = await until(async () => {
        const task = await body<FleetTask>(withToken.api(`/agent/fleet/workers/far/tasks/${id}`));
        return task.state === 'idle' ? task : undefined;
      });
      expect(done.output).toBe('done: hello');
      const answers = JSON.stringify([view, done, await body(withToken.api('/agent/fleet/components/far'))]);
      expect(answers).not.toContain(token);
      // Without the token the worker refuses every poll: it stays nameless and red, and no route reaches it.
      const refused = await without.until((fleet) => fleet.components[0]?.health === 'red');
      expect(refused.components[0]).toMatchObject({ name: null, error: expect.stringContaining('Bearer') });
      expect(JSON.stringify(refused)).not.toContain(token);
    } finally {
      await Promise.all([withToken.close(), without.close()]);
      await far.kill('SIGTERM');
    }
  });

  it('shows a killed worker yellow, then red with its last state; a task for it is 502 worker_failed', async () => {
    const root = await workerRoot('doomed', CONFIG);
    const doomed = await startWorkerProcess('doomed', root);
    const watching = await fleetServer({ urls: [doomed.url] });
    try {
      await watching.until((fleet) => fleet.components[0]?.state === 'idle');
      await doomed.kill('SIGKILL');
      const yellow = await watching.until((fleet) => fleet.components[0]?.health !== 'green');
      expect(yellow.components[0]).toMatchObject({ name: 'doomed', state: 'idle' });
      const red = await watching.until((fleet) => fleet.components[0]?.health === 'red');
      expect(red.components[0]).toMatchObject({ name: 'doomed', state: 'idle', error: expect.any(String) });
      expect(red.components[0]!.failures).toBeGreaterThanOrEqual(3);
      const refused = await watching.api('/agent/fleet/workers/doomed/tasks', {
        method: 'POST',
        json: { prompt: 'hello' },
      });
      expect(refused.status).toBe(502);
      expect(await body(refused)).toMatchObject({
        error: 'bad_gateway',
        message: expect.stringContaining('did not answer'),
        details: { worker: 'doomed', agency_code: 'worker_failed', retryable: true },
      });
    } finally {
      await watching.close();
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
