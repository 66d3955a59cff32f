// The server hands tasks to the fleet's queue: `POST /agent/fleet/tasks` on a real `agency serve` with
// AGENCY_DATABASE_URL queues a task that a queue-mode `agency worker` (its own data root, on the same real PostgreSQL)
// takes; its next turn, end and cancel go through the server to the worker holding it, at its registry URL; a task
// still queued is withdrawn in the database.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.ts';
import { readTask } from '../../src/fleet/queue/task-rows.ts';
import { type PgFleet, startPgFleet, waitFor } from '../support/pg-fleet.ts';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';

const TOKEN = 'fleet-queue-serve-token-0123456789';
const MODEL = 'openai-compatible:http://127.0.0.1:9/v1#local-model';

let fleet: PgFleet;
let server: ServeProcess;
let root: string;

beforeAll(async () => {
  fleet = await startPgFleet();
  await fleet.startWorker('queue-a');
  root = await mkdtemp(join(tmpdir(), 'agency-serve-queue-'));
  server = await startServeProcess(['--root', root, '--model', MODEL, '--fleet-ports', 'none'], TOKEN, {
    AGENCY_DATABASE_URL: fleet.pg.url,
    AGENCY_FLEET_EXECUTOR: 'claude',
  });
}, 180_000);

afterAll(async () => {
  await server?.kill('SIGTERM');
  await fleet?.close();
  if (root) await rm(root, { recursive: true, force: true });
}, 60_000);

type Answer = {
  status: number;
  body: { task_id: string; session_id: string; state: string; message?: string; output?: string | null };
};

async function call(path: string, body?: unknown, token = TOKEN): Promise<Answer> {
  const answer = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: answer.status, body: (await answer.json()) as Answer['body'] };
}

const stateOf = async (id: string) => (await readTask(fleet.db.pool, id))?.state;
const reaches = (id: string, state: string) =>
  waitFor(`${id} ${state}`, 30_000, async () => (await stateOf(id)) === state);

describe('tasks handed to the fleet through the server', () => {
  it('queues a task a worker takes, continues its session on that worker, and ends it', async () => {
    const queued = await call('/agent/fleet/tasks', { prompt: 'sleep 50' });
    expect(queued).toMatchObject({ status: 202, body: { state: 'queued' } });
    const id = queued.body.task_id;
    expect(id).toMatch(/^task-/);
    await reaches(id, 'idle');
    expect(await readTask(fleet.db.pool, id)).toMatchObject({ worker: 'queue-a', session_id: queued.body.session_id });

    const next = await call(`/agent/fleet/tasks/${id}/continue`, { prompt: 'sleep 60' });
    expect(next).toMatchObject({ status: 200, body: { task_id: id } });
    await reaches(id, 'idle');
    const ended = await call(`/agent/fleet/tasks/${id}/end`);
    expect(ended).toMatchObject({ status: 200, body: { task_id: id, state: 'completed', output: 'slept 60' } });
    await reaches(id, 'completed');
  });

  it('withdraws a task still queued, and cancels a running one on its worker', async () => {
    const running = (await call('/agent/fleet/tasks', { prompt: 'sleep 30000' })).body.task_id;
    await reaches(running, 'working');
    const waiting = await call('/agent/fleet/tasks', { prompt: 'sleep 10' });
    expect(waiting.status).toBe(202);
    const withdrawn = await call(`/agent/fleet/tasks/${waiting.body.task_id}/cancel`);
    expect(withdrawn).toMatchObject({
      status: 200,
      body: { state: 'cancelled', message: expect.stringContaining('withdrawn from the queue') },
    });
    expect(await stateOf(waiting.body.task_id)).toBe('cancelled');

    const cancelled = await call(`/agent/fleet/tasks/${running}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(['cancelling', 'cancelled']).toContain(cancelled.body.state);
    await reaches(running, 'cancelled');
  });

  it('queues a task with labels for a worker that has them: none here has gpu, so it waits until withdrawn', async () => {
    const queued = await call('/agent/fleet/tasks', { prompt: 'sleep 10', labels: ['gpu'] });
    expect(queued.status).toBe(202);
    const plain = await call('/agent/fleet/tasks', { prompt: 'sleep 10' });
    await reaches(plain.body.task_id, 'idle');
    expect(await stateOf(queued.body.task_id)).toBe('queued');
    expect((await call(`/agent/fleet/tasks/${queued.body.task_id}/cancel`)).body.state).toBe('cancelled');
    for (const labels of [['GPU'], ['a b'], 'gpu', Array.from({ length: 17 }, (_, n) => `l${n}`)])
      expect((await call('/agent/fleet/tasks', { prompt: 'x', labels })).status).toBe(400);
  });

  it('refuses a bad token, a body that is not a task, an id that is not one, and an unknown task', async () => {
    expect((await call('/agent/fleet/tasks', { prompt: 'x' }, 'wrong-token')).status).toBe(401);
    for (const body of [{}, { prompt: '' }, { prompt: 'x', env: { A: '1' } }, '{"prompt":', { prompt: 7 }]) {
      const refused = await call('/agent/fleet/tasks', body);
      expect([JSON.stringify(body), refused.status]).toEqual([JSON.stringify(body), 400]);
    }
    expect((await call('/agent/fleet/tasks/..%2F..%2Fetc/cancel')).status).toBe(400);
    const unknown = await call('/agent/fleet/tasks/task-01aaaaaaaaaaaaaaaaaaaaaaaa/continue', { prompt: 'x' });
    expect([unknown.status, unknown.body.message]).toEqual([404, expect.stringContaining('not found')]);
    // Nothing was queued by the refused requests.
    const { rows } = await fleet.db.pool.query(
      "SELECT count(*)::int AS n FROM agency.tasks WHERE request->>'prompt' = 'x'",
    );
    expect(rows[0].n).toBe(0);
  });

  it('is used by the typed client: enqueue, follow the events to the idle turn, end', async () => {
    const client = createClient({ baseUrl: server.url, token: TOKEN });
    const { task_id: id } = await client.fleet.enqueue({ prompt: 'sleep 20' });
    await reaches(id, 'idle');
    expect(await client.fleet.taskAction(id, 'end')).toMatchObject({ task_id: id, state: 'completed' });
    const types: string[] = [];
    for await (const frame of client.fleet.taskEvents(id)) types.push(frame.type);
    expect(types).toContain('finish');
    expect(() => client.fleet.taskAction('../etc', 'cancel')).toThrow(/not a worker task id/);
  });
});
