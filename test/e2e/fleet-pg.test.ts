// The fleet across hosts on a real PostgreSQL: three `agency worker` processes, each with its own data root and
// port, take tasks from pg-boss; directors (the real `agency task`, and createQueueDispatch) enqueue and follow them.
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createQueueDispatch,
  DEAD_LETTER_QUEUE,
  type FleetDatabase,
  listWorkers,
  openFleetDatabase,
  type QueueDispatch,
  readTask,
  taskHistory,
  taskQueueName,
} from '../../src/fleet/queue/index.ts';
import { cli } from '../support/cli.ts';
import { startPostgres, type TempPostgres } from '../support/postgres.ts';
import { startWorkerProcess, type WorkerProcess, workerRoot } from '../support/worker-process.ts';

let pg: TempPostgres;
let db: FleetDatabase;
let dispatch: QueueDispatch;
const workers: WorkerProcess[] = [];
const roots: string[] = [];
const NAMES = ['pg-a', 'pg-b', 'pg-c'];

beforeAll(async () => {
  pg = await startPostgres();
  const env = { AGENCY_DATABASE_URL: pg.url, AGENCY_FLEET_HEARTBEAT_SECONDS: '1' };
  // Started at once: their migrations race, and the advisory lock orders them.
  const started = await Promise.all(
    NAMES.map(async (name, index) => {
      const root = await workerRoot(name, 'port: 9000\nexecutor: builtin\n');
      roots[index] = root;
      return startWorkerProcess(name, root, { env });
    }),
  );
  workers.push(...started);
  db = openFleetDatabase(pg.url);
  await db.migrate();
  dispatch = createQueueDispatch({ db, pollMs: 500, takeGraceMs: 120_000 });
}, 180_000);

afterAll(async () => {
  await dispatch?.close();
  await db?.close();
  await Promise.all(workers.map((worker) => worker.kill('SIGTERM')));
  await pg?.stop();
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
}, 60_000);

const queueCli = (root: string, ...args: string[]) =>
  cli(['task', ...args], { AGENCY_DATABASE_URL: pg.url, AGENCY_ROOT: root });

describe('the fleet on PostgreSQL', () => {
  it('registers the three workers with healthy heartbeats', async () => {
    const registered = await listWorkers(db.pool);
    expect(registered.map(({ name, state, health, executors }) => ({ name, state, health, executors }))).toEqual(
      NAMES.map((name) => ({ name, state: 'idle', health: 'healthy', executors: ['builtin'] })),
    );
    expect(registered.map((worker) => worker.url).sort()).toEqual(workers.map((worker) => worker.url).sort());
    const listed = await cli(['fleet', '--json'], { AGENCY_DATABASE_URL: pg.url });
    expect(JSON.parse(listed.stdout)).toEqual(
      NAMES.map((name) => expect.objectContaining({ name, health: 'healthy', executors: ['builtin'] })),
    );
    const table = await cli(['fleet'], { AGENCY_DATABASE_URL: pg.url });
    expect(table.code).toBe(0);
    for (const name of NAMES) expect(table.stdout).toMatch(new RegExp(`^${name} .* idle +healthy +\\d+ s ago`, 'm'));
    expect(table.stdout).toContain('3 worker(s) in the registry');
  });

  it('refuses to start a worker with a malformed fleet variable or an unreachable database, naming it', async () => {
    const root = await workerRoot('pg-bad', 'port: 9000\nexecutor: builtin\n');
    roots.push(root);
    const malformed = await startWorkerProcess('pg-bad', root, {
      env: { AGENCY_DATABASE_URL: pg.url, AGENCY_FLEET_HEARTBEAT_SECONDS: '0' },
      waitReady: false,
    }).catch((error: Error) => error.message);
    expect(malformed).toMatch(/AGENCY_FLEET_HEARTBEAT_SECONDS: must be a whole number of seconds/);
    const unreachable = await startWorkerProcess('pg-bad', root, {
      env: { AGENCY_DATABASE_URL: 'postgres://agency@127.0.0.1:1/postgres' },
    }).catch((error: Error) => error.message);
    expect(unreachable).toMatch(
      /agency worker: the fleet database at 127.0.0.1:1\/postgres \(AGENCY_DATABASE_URL\) cannot be reached: .*ECONNREFUSED/,
    );
  }, 60_000);

  it('runs tasks through the real agency task, continues the session on its worker, and ends it', async () => {
    const root = roots[0]!;
    const first = await queueCli(root, 'hello');
    expect([first.code, first.stdout]).toEqual([0, 'done: hello\n']);
    const [, taskId, worker] = /(task-\w+) idle on (\S+)/.exec(first.stderr) ?? [];
    expect(NAMES).toContain(worker);
    const next = await queueCli(root, '--continue', 'again');
    expect([next.code, next.stdout]).toEqual([0, 'done: again\n']);
    expect(next.stderr).toContain(`${taskId} idle on ${worker}`);
    const ended = await queueCli(root, '--end');
    expect([ended.code, ended.stderr]).toEqual([0, `✓ session ended (${taskId})\n`]);
    const row = await readTask(db.pool, taskId!);
    expect(row).toMatchObject({ state: 'completed', epoch: 1, worker });
    expect(row?.result).toMatchObject({ turns: 2, output: 'done: again' });
    const history = (await taskHistory(db.pool, taskId!)).map((line) => line.message);
    expect(history[0]).toMatch(/^turn 1: hello/);
    expect(history).toContainEqual(expect.stringMatching(/^turn 2: again/));
    const json = await queueCli(root, 'in json', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ task: { state: 'idle', output: 'done: in json' } });
  }, 60_000);

  it('completes 100 tasks, spread across the three workers, each run once', async () => {
    const dispatched = await Promise.all(
      Array.from({ length: 100 }, (_, index) => dispatch.dispatch({ prompt: `task ${index}` })),
    );
    const outcomes = await Promise.all(dispatched.map((task) => dispatch.settle(task)));
    // Each dispatch named the worker that took its task, at its URL.
    for (const task of dispatched) {
      expect((await readTask(db.pool, task.task_id))?.worker).toBe(task.worker.name);
      expect(task.worker.url).toBe(workers[NAMES.indexOf(task.worker.name)]!.url);
    }
    expect(outcomes.map((outcome) => outcome.state)).toEqual(Array(100).fill('idle'));
    await Promise.all(dispatched.map((task) => dispatch.end(task)));
    const { rows } = await db.pool.query<{ worker: string; state: string; epoch: number; n: number }>(
      `SELECT worker, state, epoch, count(*)::int AS n FROM agency.tasks WHERE id = ANY($1)
       GROUP BY worker, state, epoch ORDER BY worker`,
      [dispatched.map((task) => task.task_id)],
    );
    expect(rows.every((row) => row.state === 'completed' && row.epoch === 1)).toBe(true);
    expect(rows.map((row) => row.worker)).toEqual(NAMES);
    expect(rows.reduce((sum, row) => sum + row.n, 0)).toBe(100);
    for (const row of rows) expect(row.n).toBeGreaterThan(5);
    for (const [index, task] of dispatched.entries()) {
      const row = await readTask(db.pool, task.task_id);
      expect(row?.result?.output).toBe(`done: task ${index}`);
    }
  }, 240_000);

  it('withdraws a task no worker takes in time, answering agent_busy', async () => {
    const codex = createQueueDispatch({ db, executor: 'codex', takeGraceMs: 300 });
    try {
      const error = await codex.dispatch({ prompt: 'nobody runs codex here' }).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({
        code: 'agent_busy',
        message: expect.stringMatching(/No worker took task-\w+ within 0.3 s/),
      });
      const taskId = (error as { details: { task_id: string } }).details.task_id;
      expect(await readTask(db.pool, taskId)).toMatchObject({ state: 'cancelled', epoch: 0, worker: null });
    } finally {
      await codex.close();
    }
  });

  it('dead-letters a payload that is not a task, with the reason, and does not retry it', async () => {
    const bad = { task_id: 'not-a-task-id', executor: 'builtin', request: { prompt: '' }, extra: true };
    const id = await db.boss.send(taskQueueName('builtin'), bad);
    expect(id).toBeTruthy();
    const dead = await until(async () => {
      const [job] = await db.boss.findJobs(taskQueueName('builtin'), { id: id! });
      return job?.state === 'failed' ? job : undefined;
    });
    expect(dead.retryCount).toBe(0);
    expect(JSON.stringify(dead.output)).toMatch(/task_id.*must be a worker task id/);
    const letters = await until(async () => {
      const jobs = await db.boss.findJobs(DEAD_LETTER_QUEUE, { data: { task_id: 'not-a-task-id' } });
      return jobs.length > 0 ? jobs : undefined;
    });
    expect(letters[0]?.data).toEqual(bad);
    // The workers carry on.
    const task = await dispatch.dispatch({ prompt: 'after the bad one' });
    expect(await dispatch.settle(task)).toMatchObject({ state: 'idle', task: { output: 'done: after the bad one' } });
  }, 60_000);

  it('continues an idle session on its worker after that worker restarted (at a new port)', async () => {
    const task = await dispatch.dispatch({ prompt: 'before the restart' });
    await dispatch.settle(task);
    const holder = (await readTask(db.pool, task.task_id))!.worker!;
    const index = NAMES.indexOf(holder);
    await workers[index]!.kill('SIGTERM');
    workers[index] = await startWorkerProcess(holder, roots[index]!, {
      env: { AGENCY_DATABASE_URL: pg.url, AGENCY_FLEET_HEARTBEAT_SECONDS: '1' },
    });
    await dispatch.continue(task, 'after the restart');
    expect(await dispatch.settle(task)).toMatchObject({
      state: 'idle',
      task: { output: 'done: after the restart', turns: 2 },
    });
    const history = (await taskHistory(db.pool, task.task_id)).map((line) => line.message);
    expect(history.filter((message) => message.startsWith('turn 1:'))).toHaveLength(1);
    expect(history).toContainEqual(expect.stringMatching(/^turn 2: after the restart/));
  }, 60_000);

  it('fails continue with worker_lost once the worker holding the session stopped', async () => {
    const task = await dispatch.dispatch({ prompt: 'to be orphaned' });
    await dispatch.settle(task);
    const holder = (await readTask(db.pool, task.task_id))!.worker!;
    const worker = workers[NAMES.indexOf(holder)]!;
    await worker.kill('SIGTERM');
    const [row] = (await listWorkers(db.pool)).filter((each) => each.name === holder);
    expect(row).toMatchObject({ state: 'stopped', health: 'stopped' });
    await expect(dispatch.continue(task, 'anyone there?')).rejects.toMatchObject({
      code: 'worker_lost',
      message: expect.stringContaining(`held by worker ${holder}, which is stopped`),
    });
  }, 60_000);
});

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
