// Labels and `database:` on a real PostgreSQL: real `agency worker` processes in queue mode, one with labels and its
// database from its config (no AGENCY_DATABASE_URL), one without labels whose AGENCY_DATABASE_URL wins over its
// config's; tasks requiring labels go only to the worker that has them, unlabelled ones to either, and a label set no
// worker has stays queued with a warning (`agency task`) or is withdrawn as agent_busy (a director's dispatch).
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createQueueDispatch,
  type FleetDatabase,
  listWorkers,
  openFleetDatabase,
  type QueueDispatch,
  readTask,
  taskQueueName,
} from '../../src/fleet/queue/index.ts';
import { createFleetDispatch } from '../../src/fleet/directors/fleet-dispatch.ts';
import { agency, cli } from '../support/cli.ts';
import { waitFor } from '../support/pg-fleet.ts';
import { startPostgres, type TempPostgres } from '../support/postgres.ts';
import { startWorkerProcess, type WorkerProcess, workerRoot } from '../support/worker-process.ts';

let pg: TempPostgres;
let db: FleetDatabase;
let dispatch: QueueDispatch;
const workers: WorkerProcess[] = [];
const roots: string[] = [];
const noEnv = { AGENCY_DATABASE_URL: '', AGENCY_FLEET_HEARTBEAT_SECONDS: '1' };

beforeAll(async () => {
  pg = await startPostgres();
  const gpuRoot = await workerRoot(
    'gpu-1',
    `port: 9000\nexecutor: builtin\ndatabase: ${pg.url}\nlabels: [linux, gpu]\n`,
  );
  const plainRoot = await workerRoot(
    'plain-1',
    'port: 9000\nexecutor: builtin\ndatabase: postgres://agency@127.0.0.1:1/nowhere\n',
  );
  roots.push(gpuRoot, plainRoot);
  workers.push(
    await startWorkerProcess('gpu-1', gpuRoot, { env: noEnv }),
    await startWorkerProcess('plain-1', plainRoot, { env: { ...noEnv, AGENCY_DATABASE_URL: pg.url } }),
  );
  db = openFleetDatabase(pg.url);
  await db.migrate();
  await waitFor('both workers registered', 30_000, async () => (await listWorkers(db.pool)).length === 2);
  dispatch = createQueueDispatch({ db, pollMs: 300, takeGraceMs: 60_000 });
}, 180_000);

afterAll(async () => {
  await dispatch?.close();
  await db?.close();
  await Promise.all(workers.map((worker) => worker.kill('SIGTERM')));
  await pg?.stop();
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
}, 60_000);

const where = () => `127.0.0.1:${pg.port}/postgres`;

describe('labels and database: in the fleet on PostgreSQL', () => {
  it("registers each worker's labels, from a config's database: or the variable over it, and says which", async () => {
    const registered = await listWorkers(db.pool);
    expect(registered.map(({ name, labels, health }) => ({ name, labels, health }))).toEqual([
      { name: 'gpu-1', labels: ['gpu', 'linux'], health: 'healthy' },
      { name: 'plain-1', labels: [], health: 'healthy' },
    ]);
    const [gpu, plain] = workers;
    const gpuFile = join(roots[0]!, 'agents', 'gpu-1', 'config.yaml');
    expect(gpu!.output()).toContain(`queue mode: fleet database ${where()} (${gpuFile}: database)`);
    expect(plain!.output()).toContain(`queue mode: fleet database ${where()} (AGENCY_DATABASE_URL, over the config's`);
    const validated = await cli(['validate', gpuFile, '--root', roots[0]!]);
    expect([validated.code, validated.stdout]).toEqual([
      0,
      expect.stringContaining(
        `worker gpu-1 on 127.0.0.1:9000, executor builtin, labels gpu,linux, fleet database ${where()}`,
      ),
    ]);
    const table = await cli(['fleet'], { AGENCY_DATABASE_URL: pg.url });
    expect(table.stdout).toMatch(/^NAME +HOST +URL +EXECUTORS +LABELS +STATE/m);
    expect(table.stdout).toMatch(/^gpu-1 .* builtin +gpu,linux +idle +healthy/m);
    expect(table.stdout).toMatch(/^plain-1 .* builtin +— +idle +healthy/m);
  });

  it('hands tasks requiring labels only to the worker that has them, and unlabelled ones to either', async () => {
    const labelled = await Promise.all([
      ...Array.from({ length: 4 }, (_, index) => dispatch.dispatch({ prompt: `gpu ${index}`, labels: ['gpu'] })),
      ...Array.from({ length: 4 }, (_, index) =>
        dispatch.dispatch({ prompt: `both ${index}`, labels: ['linux', 'gpu', 'linux'] }),
      ),
    ]);
    expect(new Set(labelled.map((task) => task.worker.name))).toEqual(new Set(['gpu-1']));
    for (const task of labelled) expect(await dispatch.settle(task)).toMatchObject({ state: 'idle' });
    const queues = (await db.boss.getQueues()).map((queue) => queue.name);
    expect(queues).toEqual(
      expect.arrayContaining([taskQueueName('builtin', ['gpu']), 'agency-tasks-builtin/gpu/linux']),
    );
    const anyone = await Promise.all(
      Array.from({ length: 30 }, (_, index) => dispatch.dispatch({ prompt: `any ${index}` })),
    );
    const outcomes = await Promise.all(anyone.map((task) => dispatch.settle(task)));
    expect(outcomes.every((outcome) => outcome.state === 'idle')).toBe(true);
    expect(new Set(anyone.map((task) => task.worker.name))).toEqual(new Set(['gpu-1', 'plain-1']));
    await Promise.all([...labelled, ...anyone].map((task) => dispatch.end(task)));
    const log = (index: number, name: string) => readFile(join(roots[index]!, 'agents', name, 'agent.log'), 'utf8');
    expect(await log(0, 'gpu-1')).toContain('queue mode: taking tasks from agency-tasks-builtin/gpu/linux');
    expect(await log(1, 'plain-1')).not.toContain('agency-tasks-builtin/gpu');
  }, 120_000);

  it("sends a director's tasks with its config's labels besides the request's, through its database: key", async () => {
    const file = join(roots[1]!, 'directors', 'nightly', 'config.yaml');
    const director = createFleetDispatch(
      { candidates: async () => [], clientFor: () => ({}) as never },
      { AGENCY_DATABASE_URL: '' },
      { database: pg.url, file, labels: ['gpu'] },
    );
    const task = await director.dispatch({ prompt: 'from the director', labels: ['linux'] });
    expect(task.worker.name).toBe('gpu-1');
    expect(await director.settle(task)).toMatchObject({ state: 'idle', task: { output: 'done: from the director' } });
    const [job] = await db.boss.findJobs('agency-tasks-builtin/gpu/linux', { data: { task_id: task.task_id } });
    expect(job).toBeDefined();
    await director.end(task);
  }, 60_000);

  it('withdraws from a director a task whose labels no worker has, as agent_busy', async () => {
    const quick = createQueueDispatch({ db, takeGraceMs: 1_500 });
    try {
      const error = await quick.dispatch({ prompt: 'arm only', labels: ['arm64'] }).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: 'agent_busy' });
      const taskId = (error as { details: { task_id: string } }).details.task_id;
      expect(await readTask(db.pool, taskId)).toMatchObject({ state: 'cancelled', worker: null });
    } finally {
      await quick.close();
    }
  }, 30_000);

  it('agency task --label warns at once when no worker has the labels, keeps it queued, and Ctrl-C cancels it', async () => {
    const root = roots[1]!;
    const child = spawn(process.execPath, [agency, 'task', '--label', 'arm64', '--label', 'gpu', 'on arm'], {
      env: { ...process.env, AGENCY_DATABASE_URL: pg.url, AGENCY_ROOT: root },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stderr = collect(child);
    await waitFor('the warning', 30_000, async () => /No live worker/.test(stderr()));
    expect(stderr()).toContain(
      'No live worker in the registry runs builtin with the labels arm64, gpu; the task stays queued until one starts',
    );
    const taskId = /(task-\w+) queued on agency-tasks-builtin\/arm64\/gpu/.exec(stderr())?.[1];
    expect(taskId).toBeDefined();
    expect(await readTask(db.pool, taskId!)).toMatchObject({ state: 'queued', worker: null });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
    await waitFor('the task cancelled', 30_000, async () => (await readTask(db.pool, taskId!))?.state === 'cancelled');
    // A label the workers have: no warning, and the task runs.
    const done = await cli(['task', '--label', 'gpu', 'on a gpu'], { AGENCY_DATABASE_URL: pg.url, AGENCY_ROOT: root });
    expect([done.code, done.stdout]).toEqual([0, 'done: on a gpu\n']);
    expect(done.stderr).not.toContain('No live worker');
    expect(done.stderr).toMatch(/idle on gpu-1/);
  }, 60_000);

  it('refuses a malformed --label, and --label without fleet mode', async () => {
    const bad = await cli(['task', '--label', 'GPU', 'x'], { AGENCY_DATABASE_URL: pg.url });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--label "GPU": must be a label: a-z, 0-9');
    const many = Array.from({ length: 17 }, (_, index) => ['--label', `l${index}`]).flat();
    const tooMany = await cli(['task', ...many, 'x'], { AGENCY_DATABASE_URL: pg.url });
    expect([tooMany.code, tooMany.stderr]).toEqual([2, expect.stringContaining('--label: at most 16 labels')]);
    const local = await cli(['task', '--label', 'gpu', 'x', '--ports', '1-1'], { AGENCY_DATABASE_URL: '' });
    expect(local.code).not.toBe(0);
    expect(local.stderr).toContain('--label needs fleet mode (AGENCY_DATABASE_URL set)');
  });

  it('refuses to start a worker whose database: is malformed or holds a password others may read, naming the file', async () => {
    const bad = await workerRoot('pg-bad', 'port: 9000\nexecutor: builtin\ndatabase: redis://127.0.0.1/0\n');
    roots.push(bad);
    const file = join(bad, 'agents', 'pg-bad', 'config.yaml');
    const malformed = await startWorkerProcess('pg-bad', bad, { env: noEnv, waitReady: false }).catch(
      (error: Error) => error.message,
    );
    expect(malformed).toContain(`${file}:3:1: database: must be a postgres:// URL`);
    await writeFile(
      file,
      `port: 9000\nexecutor: builtin\ndatabase: postgres://agency:s3cret@127.0.0.1:${pg.port}/postgres\n`,
    );
    await chmod(file, 0o644);
    const loose = await startWorkerProcess('pg-bad', bad, { env: noEnv, waitReady: false }).catch(
      (error: Error) => error.message,
    );
    expect(loose).toContain(`${file}: database: the URL holds a password and the file is readable by others`);
    expect(loose).not.toContain('s3cret');
    const validated = await cli(['validate', file, '--root', bad]);
    expect(validated.code).not.toBe(0);
    expect(validated.stdout + validated.stderr).toContain(`chmod 600 ${file}`);
    const unreachable = await workerRoot(
      'pg-far',
      'port: 9000\nexecutor: builtin\ndatabase: postgres://agency@127.0.0.1:1/far\n',
    );
    roots.push(unreachable);
    const far = await startWorkerProcess('pg-far', unreachable, { env: noEnv }).catch((error: Error) => error.message);
    const farFile = join(unreachable, 'agents', 'pg-far', 'config.yaml');
    expect(far).toContain(`the fleet database at 127.0.0.1:1/far (${farFile}: database) cannot be reached`);
    expect(far).not.toContain('AGENCY_DATABASE_URL');
  }, 60_000);
});

function collect(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
}
