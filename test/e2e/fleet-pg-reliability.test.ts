// The fleet across hosts under faults, on a real PostgreSQL with real `agency worker` processes in queue mode:
// workers killed with SIGKILL at random moments, a worker paused past its lease, payloads that are not tasks.
// AGENCY_FLEET_RELIABILITY_FULL=1 runs the kill test at full size (100 tasks, 5 kills) instead of 30 tasks, 2 kills.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DispatchedTask } from '../../src/fleet/directors/task-dispatch.ts';
import { DEAD_LETTER_QUEUE, taskHistory, taskQueueName } from '../../src/fleet/queue/index.ts';
import { alive, type FleetWorker, type PgFleet, startPgFleet, waitFor, workerLog } from '../support/pg-fleet.ts';
import { runProblems } from '../support/pg-fleet-checks.ts';

const FULL = process.env.AGENCY_FLEET_RELIABILITY_FULL === '1';
const SIZE = FULL ? { tasks: 100, kills: 5 } : { tasks: 30, kills: 2 };

let fleet: PgFleet;
beforeAll(async () => {
  fleet = await startPgFleet();
  await Promise.all(['w1', 'w2', 'w3'].map((name) => fleet.startWorker(name)));
}, 120_000);
afterAll(async () => {
  await fleet?.close();
}, 60_000);

const current = (name: string): FleetWorker => {
  const worker = fleet.workers.findLast((each) => each.name === name && alive(each));
  if (!worker) throw new Error(`no live worker ${name}`);
  return worker;
};

// The live workers running a task right now, and their task, as each one's `/status` says.
async function workingNow(): Promise<{ name: string; task: string }[]> {
  const live = ['w1', 'w2', 'w3'].map(current);
  const statuses = await Promise.all(
    live.map((worker) =>
      worker.json<{ state: string; current_task: { id: string } | null }>('/status').catch(() => null),
    ),
  );
  return live.flatMap((worker, at) => {
    const status = statuses[at];
    return status?.state === 'working' && status.current_task
      ? [{ name: worker.name, task: status.current_task.id }]
      : [];
  });
}

describe('the fleet on PostgreSQL, under faults', () => {
  it(`loses no task and ends none twice when workers are killed at random moments (${SIZE.tasks} tasks, ${SIZE.kills} kills)`, async () => {
    const tasks: DispatchedTask[] = [];
    for (let i = 0; i < SIZE.tasks; i++)
      tasks.push(await fleet.dispatch.dispatch({ prompt: `sleep ${randomInt(300, 1500)}` }));
    const settled = Promise.all(tasks.map((task) => fleet.dispatch.settle(task)));
    const killed: string[] = [];
    for (let kill = 0; kill < SIZE.kills; kill++) {
      let victim: { name: string; task: string } | undefined;
      await waitFor('a worker running a task', 60_000, async () => {
        const working = await workingNow();
        victim = working[randomInt(0, Math.max(1, working.length))];
        return victim !== undefined;
      });
      const { name, task } = victim!;
      const process = current(name);
      await new Promise((resolve) => setTimeout(resolve, randomInt(0, 200)));
      await process.kill('SIGKILL');
      killed.push(task);
      await fleet.startWorker(name, { root: process.root });
    }
    const outcomes = await settled;
    expect(outcomes.map(({ state }) => state)).toEqual(tasks.map(() => 'idle'));
    const ids = tasks.map(({ task_id: id }) => id);
    expect(await runProblems(fleet.db.pool, ids, fleet.workers)).toEqual([]);
    const rows = await fleet.rows();
    // The kills hit tasks: those were taken again, with a new epoch, and every worker ended some.
    const retaken = killed.filter((id) => (rows.get(id)?.epoch ?? 0) > 1);
    expect(retaken.length).toBeGreaterThan(0);
    expect(new Set(ids.map((id) => rows.get(id)?.worker))).toEqual(new Set(['w1', 'w2', 'w3']));
    // Every job completes: one whose worker was killed after its task ended, before the job did, is completed by the
    // next worker to take it once its lease lapses (without running the task again).
    const jobStates = async () =>
      (
        await fleet.db.pool.query<{ state: string; count: number }>(
          'SELECT state, count(*)::int AS count FROM pgboss.job WHERE name = $1 AND singleton_key = ANY($2) GROUP BY state',
          [taskQueueName('claude'), ids],
        )
      ).rows;
    await waitFor('every job completed', 90_000, async () =>
      (await jobStates()).every(({ state }) => state === 'completed'),
    );
    expect(await jobStates()).toEqual([{ state: 'completed', count: SIZE.tasks }]);
    expect(await runProblems(fleet.db.pool, ids, fleet.workers)).toEqual([]);
  }, 300_000);

  it('rejects and logs the writes of a worker paused past its lease, once another took the task over', async () => {
    const [task] = [await fleet.dispatch.dispatch({ prompt: 'sleep 3000' })];
    let holder = '';
    await waitFor('the task taken', 30_000, async () => {
      holder = (await fleet.rows()).get(task.task_id)?.worker ?? '';
      return holder !== '';
    });
    const paused = current(holder);
    paused.child.kill('SIGSTOP');
    try {
      // The lease (10 s) lapses; pg-boss hands the job to another worker, which takes the task with epoch 2.
      await waitFor('the task taken over and ended', 90_000, async () => {
        const row = (await fleet.rows()).get(task.task_id);
        return row?.epoch === 2 && row.state === 'idle' && row.worker !== holder;
      });
    } finally {
      paused.child.kill('SIGCONT');
    }
    await waitFor(`${holder}'s stale write logged`, 30_000, async () =>
      /task-\S+: write with epoch 1 rejected/.test(await workerLog(paused)),
    );
    const row = (await fleet.rows()).get(task.task_id)!;
    expect(row).toMatchObject({ state: 'idle', epoch: 2, result: { state: 'idle', output: 'slept 3000' } });
    expect(row.worker).not.toBe(holder);
    // Its history holds both runs, fenced: epoch 1's lines, then epoch 2's, and no line after the takeover from 1.
    expect(await runProblems(fleet.db.pool, [task.task_id])).toEqual([]);
    const epochs = (await taskHistory(fleet.db.pool, task.task_id)).map(({ epoch }) => epoch);
    expect(epochs[0]).toBe(1);
    expect(epochs.at(-1)).toBe(2);
  }, 180_000);

  it('dead-letters a payload that is not a task, with the reason, and never retries it', async () => {
    const session = '7c8fe395-dfda-4bb9-91a6-5a4b7bec5c43';
    const good = {
      task_id: 'task-01jd3z8w2x4n6q8r0t2v4x6z8b',
      executor: 'claude',
      request: { prompt: 'hello', session_id: session },
      rerun_on_loss: true,
    };
    const bad: [object, RegExp][] = [
      [{ ...good, task_id: '../../etc/passwd' }, /task_id/],
      [{ ...good, surprise: true }, /surprise|unrecognized/i],
      [{ ...good, request: { session_id: session } }, /request\.prompt/],
      [{ ...good, executor: 'bash' }, /executor/],
      [{ ...good, request: { ...good.request, session_id: 'not a uuid' } }, /session_id/],
      [{}, /task_id/],
    ];
    // Each with a key of its own, as the dispatch sends tasks: the queue holds one job per key at a time.
    const jobs = await Promise.all(
      bad.map(([data], at) => fleet.db.boss.send(taskQueueName('claude'), data, { singletonKey: `bad-${at}` })),
    );
    expect(jobs.every((id) => typeof id === 'string')).toBe(true);
    const query = () =>
      fleet.db.pool.query<{ id: string; state: string; retry_count: number; output: { reason?: string } | null }>(
        'SELECT id, state, retry_count, output FROM pgboss.job WHERE id = ANY($1)',
        [jobs],
      );
    await waitFor('every bad job failed', 60_000, async () =>
      (await query()).rows.every((job) => job.state === 'failed'),
    );
    const byId = new Map((await query()).rows.map((job) => [job.id, job]));
    bad.forEach(([, reason], at) => {
      const job = byId.get(jobs[at]!);
      expect(job, `payload ${at}`).toMatchObject({ state: 'failed', retry_count: 0 });
      expect(job?.output?.reason, `payload ${at}`).toMatch(reason);
    });
    const { rows: dead } = await fleet.db.pool.query<{ data: object }>('SELECT data FROM pgboss.job WHERE name = $1', [
      DEAD_LETTER_QUEUE,
    ]);
    expect(dead.map(({ data }) => data)).toEqual(expect.arrayContaining(bad.map(([data]) => data)));
    expect((await fleet.rows()).has(good.task_id)).toBe(false);
    // The workers carry on: a task after them is done.
    const after = await fleet.dispatch.dispatch({ prompt: 'after the bad ones' });
    expect(await fleet.dispatch.settle(after)).toMatchObject({
      state: 'idle',
      task: { output: 'done: after the bad ones' },
    });
  }, 120_000);
});
