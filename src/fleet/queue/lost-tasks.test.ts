// Tasks whose worker was lost during a turn with no pg-boss job behind it: failed `worker_lost` once, fenced, on a
// real PostgreSQL; a healthy worker's task, a task whose job is live and a task already ended are left alone.
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { useFleetDatabase } from '../../../test/support/fleet-database.ts';
import { takenTask } from '../../../test/support/fleet-task-rows.ts';
import { until } from '../../../test/support/until.ts';
import { failLostTasks } from './lost-tasks.ts';
import { registerWorker } from './registry.ts';
import { readTask, taskHistory, writeTask } from './task-rows.ts';

const fleet = useFleetDatabase();
// A database up for less than 6 heartbeat intervals counts no worker lost (see the last case): these use 1 s.
beforeAll(() => until(async () => ((await uptime()) > 7 ? true : undefined), 30_000), 40_000);

const uptime = async () =>
  (
    await fleet.db.pool.query<{ seconds: number }>(
      'SELECT extract(epoch FROM now() - pg_postmaster_start_time())::float8 AS seconds',
    )
  ).rows[0]!.seconds;

// A worker with 1 s heartbeats whose last heartbeat is `age` seconds old (`stopped`: shut down cleanly).
async function worker(name: string, age: number, { stopped = false, heartbeatSeconds = 1 } = {}): Promise<void> {
  await registerWorker(fleet.db.pool, { name, url: 'http://127.0.0.1:1', executors: ['builtin'], heartbeatSeconds });
  await fleet.db.pool.query(
    `UPDATE agency.workers SET last_heartbeat = now() - make_interval(secs => $2),
       state = CASE WHEN $3 THEN 'stopped' ELSE state END WHERE name = $1`,
    [name, age, stopped],
  );
}

// The task's pg-boss job, as the dispatch sends it (singletonKey = task id), in a label queue of its own (a task
// requiring the label named as it is): `created`, and `active` once fetched.
async function jobOf(taskId: string, { fetch = false } = {}): Promise<{ queue: string; id: string }> {
  const queue = await fleet.db.taskQueue('builtin', [taskId]);
  const id = (await fleet.db.boss.send(queue, { task_id: taskId }, { singletonKey: taskId }))!;
  if (fetch) await until(async () => ((await fleet.db.boss.fetch(queue)).length > 0 ? true : undefined));
  return { queue, id };
}

describe('failing the tasks of lost workers', () => {
  it('leaves a healthy or late worker’s task alone', async () => {
    await worker('healthy', 0, { heartbeatSeconds: 100 });
    await worker('late', 300, { heartbeatSeconds: 100 });
    await takenTask(fleet.db.pool, 'task-healthy', 'healthy');
    await takenTask(fleet.db.pool, 'task-late', 'late');
    expect(await failLostTasks(fleet.db.pool, { taskId: 'task-healthy' })).toEqual([]);
    expect(await failLostTasks(fleet.db.pool, { taskId: 'task-late' })).toEqual([]);
    expect(await readTask(fleet.db.pool, 'task-healthy')).toMatchObject({ state: 'working', epoch: 1, error: null });
    expect(await readTask(fleet.db.pool, 'task-late')).toMatchObject({ state: 'working', epoch: 1, error: null });
  });

  it('leaves a lost worker’s task to pg-boss while its job is live (queued, retried or active)', async () => {
    await worker('lost-with-job', 60);
    await takenTask(fleet.db.pool, 'task-job-created', 'lost-with-job');
    await jobOf('task-job-created');
    await takenTask(fleet.db.pool, 'task-job-active', 'lost-with-job');
    await jobOf('task-job-active', { fetch: true });
    expect(await failLostTasks(fleet.db.pool, { taskId: 'task-job-created' })).toEqual([]);
    expect(await failLostTasks(fleet.db.pool, { taskId: 'task-job-active' })).toEqual([]);
    expect(await readTask(fleet.db.pool, 'task-job-active')).toMatchObject({ state: 'working', epoch: 1 });
  });

  it('fails a lost worker’s task with no live job once, when two connections try at once, and fences the worker', async () => {
    await worker('lost', 60);
    const epoch = await takenTask(fleet.db.pool, 'task-lost', 'lost');
    // Its first turn's job completed; the turn running now went to the worker over HTTP.
    const job = await jobOf('task-lost', { fetch: true });
    await fleet.db.boss.complete(job.queue, job.id);
    const pools = [new pg.Pool({ connectionString: fleet.pg.url }), new pg.Pool({ connectionString: fleet.pg.url })];
    try {
      const passes = await Promise.all(pools.map((pool) => failLostTasks(pool, { taskId: 'task-lost' })));
      expect(passes.flat()).toEqual([
        {
          id: 'task-lost',
          epoch: epoch + 1,
          worker: 'lost',
          message: expect.stringMatching(/^Task task-lost: its worker lost was lost \(last heartbeat 20\d\d-.*Z\)/),
        },
      ]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
    const row = await readTask(fleet.db.pool, 'task-lost');
    expect(row).toMatchObject({ state: 'failed', epoch: epoch + 1, worker: 'lost', error: { type: 'worker_lost' } });
    const lines = (await taskHistory(fleet.db.pool, 'task-lost')).filter((line) => line.epoch === epoch + 1);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        message: expect.stringMatching(/its worker lost was lost.*worker_lost/),
      }),
    ]);
    // The worker, back, writes with the epoch it ran under: rejected.
    expect(await writeTask(fleet.db.pool, 'task-lost', epoch, { state: 'idle', error: null })).toBe(false);
    expect(await readTask(fleet.db.pool, 'task-lost')).toEqual(row);
    expect(await failLostTasks(fleet.db.pool, { taskId: 'task-lost' })).toEqual([]);
  });

  it('fails the task of a stopped worker, of one not registered, and of a worker that says it restarted', async () => {
    await worker('stopped', 0, { stopped: true });
    await worker('restarted', 0);
    await takenTask(fleet.db.pool, 'task-stopped', 'stopped');
    await takenTask(fleet.db.pool, 'task-nobody', 'nobody');
    await takenTask(fleet.db.pool, 'task-restarted', 'restarted');
    await fleet.db.pool.query("UPDATE agency.tasks SET state = 'cancelling' WHERE id = 'task-stopped'");
    expect((await failLostTasks(fleet.db.pool, { taskId: 'task-stopped' }))[0]?.message).toMatch(
      /its worker stopped stopped \(last heartbeat 20\d\d-.*Z\) while a turn ran/,
    );
    expect((await failLostTasks(fleet.db.pool, { taskId: 'task-nobody' }))[0]?.message).toMatch(
      /nobody is not registered/,
    );
    expect(await failLostTasks(fleet.db.pool, { taskId: 'task-restarted', restarted: 'someone else' })).toEqual([]);
    expect(
      (await failLostTasks(fleet.db.pool, { taskId: 'task-restarted', restarted: 'restarted' }))[0]?.message,
    ).toMatch(/its worker restarted restarted while a turn ran/);
    for (const id of ['task-stopped', 'task-nobody', 'task-restarted'])
      expect(await readTask(fleet.db.pool, id)).toMatchObject({
        state: 'failed',
        epoch: 2,
        error: { type: 'worker_lost' },
      });
  });

  it('leaves a task that already ended alone, and bounds a pass by its limit', async () => {
    await worker('gone', 60);
    for (const state of ['idle', 'completed', 'failed', 'cancelled']) {
      const epoch = await takenTask(fleet.db.pool, `task-${state}`, 'gone');
      await writeTask(fleet.db.pool, `task-${state}`, epoch, { state: state as 'idle' });
    }
    for (let i = 0; i < 3; i++) await takenTask(fleet.db.pool, `task-many-${i}`, 'gone');
    const first = await failLostTasks(fleet.db.pool, { limit: 2 });
    const second = await failLostTasks(fleet.db.pool, { limit: 2 });
    expect(first).toHaveLength(2);
    expect([...first, ...second].map(({ id }) => id).sort()).toEqual(['task-many-0', 'task-many-1', 'task-many-2']);
    for (const state of ['idle', 'completed', 'failed', 'cancelled'])
      expect(await readTask(fleet.db.pool, `task-${state}`)).toMatchObject({ state, epoch: 1, error: null });
  });

  it('writes ids and worker names as data, quotes and all', async () => {
    const name = `o'brien"; DROP TABLE agency.tasks; --`;
    await worker(name, 0, { stopped: true });
    await takenTask(fleet.db.pool, `task-'quoted'`, name);
    const [lost] = await failLostTasks(fleet.db.pool, { taskId: `task-'quoted'` });
    expect(lost?.message).toContain(`Task task-'quoted': its worker ${name} stopped (last heartbeat `);
    expect((await readTask(fleet.db.pool, `task-'quoted'`))?.error).toEqual({
      type: 'worker_lost',
      message: lost?.message,
    });
  });

  it('counts no worker lost while the database has been up for less than 6 of its heartbeat intervals', async () => {
    await worker('slow-beats', 7_200, { heartbeatSeconds: 3_600 });
    await takenTask(fleet.db.pool, 'task-slow-beats', 'slow-beats');
    expect(await uptime()).toBeLessThan(6 * 3_600);
    expect(await failLostTasks(fleet.db.pool, { taskId: 'task-slow-beats' })).toEqual([]);
    await fleet.db.pool.query("UPDATE agency.workers SET heartbeat_seconds = 1 WHERE name = 'slow-beats'");
    expect(await failLostTasks(fleet.db.pool, { taskId: 'task-slow-beats' })).toHaveLength(1);
  });
});
