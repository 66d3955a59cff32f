// `agency serve` in fleet mode, on a real PostgreSQL: its fleet view lists the workers of the registry (two queue-mode
// `agency worker` processes) with the health of their heartbeats, behind the token, and a database it cannot reach is
// a 503 naming the host (never the password) on a server that keeps running.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetView } from '../../src/api/fleet-schemas.ts';
import { freePortBlock } from '../support/free-ports.ts';
import { startPostgres, type TempPostgres } from '../support/postgres.ts';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';
import { until } from '../support/server-fixture.ts';
import { startWorkerProcess, type WorkerProcess, workerRoot } from '../support/worker-process.ts';

const TOKEN = 'fleet-pg-serve-token-0123456789';
const PASSWORD = 'pg-secret-never-shown';
const NAMES = ['srv-a', 'srv-b'];
// No model is called here: the server only needs one to start.
const MODEL = 'openai-compatible:http://127.0.0.1:9/v1#local-model';

let pg: TempPostgres;
let server: ServeProcess;
const workers: WorkerProcess[] = [];
const roots: string[] = [];

// The database URL with a password: the cluster trusts loopback, so it is accepted and ignored.
const urlWithPassword = (port: number) => `postgres://agency:${PASSWORD}@127.0.0.1:${port}/postgres`;

async function serveRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'agency-serve-pg-'));
  roots.push(root);
  return root;
}

const fleetOf = async (from: ServeProcess) => {
  const answer = await from.api('/agent/fleet');
  return { status: answer.status, body: (await answer.json()) as FleetView & { message?: string; error?: string } };
};

beforeAll(async () => {
  pg = await startPostgres();
  const env = { AGENCY_DATABASE_URL: pg.url, AGENCY_FLEET_HEARTBEAT_SECONDS: '1' };
  for (const name of NAMES) {
    const root = await workerRoot(name, 'port: 9000\nexecutor: builtin\n');
    roots.push(root);
    workers.push(await startWorkerProcess(name, root, { env }));
  }
  server = await startServeProcess(['--root', await serveRoot(), '--model', MODEL, '--fleet-ports', 'none'], TOKEN, {
    AGENCY_DATABASE_URL: urlWithPassword(pg.port),
  });
}, 180_000);

afterAll(async () => {
  await server?.kill('SIGTERM');
  await Promise.all(workers.map((worker) => worker.kill('SIGTERM')));
  await pg?.stop();
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
}, 60_000);

describe('agency serve with AGENCY_DATABASE_URL', () => {
  it('says in its banner that the fleet reads the registry, naming the host and not the password', async () => {
    await until(async () => (/^Fleet: /m.test(server.output()) ? true : undefined));
    expect(server.output()).toContain(`Fleet: registry at 127.0.0.1:${pg.port}/postgres (AGENCY_DATABASE_URL)`);
    expect(server.output()).not.toContain(PASSWORD);
  });

  it('lists the two queue-mode workers of the registry with healthy heartbeats', async () => {
    const { status, body } = await fleetOf(server);
    expect(status).toBe(200);
    expect(body.registry).toMatchObject({ database: `127.0.0.1:${pg.port}/postgres`, error: null });
    expect(
      body.registry!.workers.map(({ name, state, health, executors }) => ({ name, state, health, executors })),
    ).toEqual(NAMES.map((name) => ({ name, state: 'idle', health: 'healthy', executors: ['builtin'] })));
    expect(body.registry!.workers.map((worker) => worker.url)).toEqual(workers.map((worker) => worker.url));
    expect(JSON.stringify(body)).not.toContain(PASSWORD);
  });

  it('sends the registry on the live fleet stream too', async () => {
    const controller = new AbortController();
    const answer = await fetch(`${server.url}/agent/fleet/events`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: controller.signal,
    });
    expect(answer.status).toBe(200);
    const reader = answer.body!.getReader();
    let text = '';
    while (!/event: fleet\ndata: .*\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const event = JSON.parse(/event: fleet\ndata: (.*)\n\n/.exec(text)![1]!) as FleetView;
    expect(event.registry!.workers.map((worker) => worker.name)).toEqual(NAMES);
  });

  it('shows a worker that stopped as stopped', async () => {
    expect(await workers[1]!.kill('SIGTERM')).toBe(0);
    const stopped = await until(async () => {
      const { body } = await fleetOf(server);
      const worker = body.registry?.workers.find((each) => each.name === 'srv-b');
      return worker?.health === 'stopped' ? worker : undefined;
    }, 30_000);
    expect(stopped).toMatchObject({ state: 'stopped', current_task: null });
    expect(stopped.stopped_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const { body } = await fleetOf(server);
    expect(body.registry!.workers.find((each) => each.name === 'srv-a')).toMatchObject({ health: 'healthy' });
  });

  it('still requires the token on the fleet routes', async () => {
    for (const path of ['/agent/fleet', '/agent/fleet/events', '/agent/fleet/components/srv-a']) {
      const bare = await fetch(`${server.url}${path}`);
      expect([path, bare.status]).toEqual([path, 401]);
      const wrong = await fetch(`${server.url}${path}`, { headers: { authorization: 'Bearer not-the-token' } });
      expect([path, wrong.status]).toEqual([path, 401]);
      const text = await wrong.text();
      expect(text).not.toContain('srv-a');
    }
  });

  it('answers 503 naming the host when the database cannot be reached, and keeps serving', async () => {
    const { from: port } = await freePortBlock(1);
    const down = await startServeProcess(
      ['--root', await serveRoot(), '--model', MODEL, '--fleet-ports', 'none'],
      TOKEN,
      { AGENCY_DATABASE_URL: urlWithPassword(port) },
    );
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const { status, body } = await fleetOf(down);
        expect(status).toBe(503);
        expect(body.error).toBe('service_unavailable');
        expect(body.message).toContain(`the fleet database at 127.0.0.1:${port}/postgres (AGENCY_DATABASE_URL)`);
        expect(JSON.stringify(body)).not.toContain(PASSWORD);
      }
      // The fleet's tasks are in the same database: 503 too, naming it.
      for (const path of ['/agent/fleet/tasks', `/agent/fleet/tasks/task-${'0'.repeat(26)}/events`]) {
        const answer = await down.api(path);
        const body = (await answer.json()) as { error: string; message: string };
        expect([path, answer.status, body.error]).toEqual([path, 503, 'service_unavailable']);
        expect(body.message).toContain(`127.0.0.1:${port}/postgres (AGENCY_DATABASE_URL)`);
        expect(JSON.stringify(body)).not.toContain(PASSWORD);
      }
      // The server is up: its other routes answer, and the process did not end.
      expect((await down.api('/agent/tasks')).status).toBe(200);
      expect(down.child.exitCode).toBeNull();
      expect(down.output()).not.toContain(PASSWORD);
    } finally {
      await down.kill('SIGTERM');
    }
  });

  it('refuses to start with a database URL that is not a postgres:// URL, naming the variable', async () => {
    const refused = await startServeProcess(['--root', await serveRoot(), '--model', MODEL], TOKEN, {
      AGENCY_DATABASE_URL: `mysql://agency:${PASSWORD}@127.0.0.1/db`,
    }).catch((error: Error) => error.message);
    expect(refused).toContain('AGENCY_DATABASE_URL: must be a postgres:// URL');
    expect(refused).not.toContain(PASSWORD);
  });
});
