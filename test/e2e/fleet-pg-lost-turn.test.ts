// A worker lost during a task's later turn, on a real PostgreSQL with real `agency worker` processes (1 s heartbeats):
// that turn went to the worker over HTTP, with no pg-boss job whose lease could lapse. The task fails `worker_lost`
// once the registry counts the worker lost (6 heartbeats), by a follower's `settle` when no worker is left, by a live
// worker's pass otherwise, and by the worker itself when it restarts at once; the worker, back, changes nothing. A
// first turn whose worker is killed is still pg-boss's to hand on: the pass leaves it alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DispatchedTask } from '../../src/fleet/directors/task-dispatch.ts';
import { readTask, type TaskRow, taskHistory } from '../../src/fleet/queue/index.ts';
import { alive, type FleetWorker, type PgFleet, startPgFleet, waitFor, workerLog } from '../support/pg-fleet.ts';

let fleet: PgFleet;
beforeAll(async () => {
  fleet = await startPgFleet();
}, 120_000);
afterAll(async () => {
  await fleet?.close();
}, 60_000);

const row = async (id: string): Promise<TaskRow> => (await readTask(fleet.db.pool, id))!;
const holderOf = async (id: string): Promise<FleetWorker> => {
  const name = (await row(id)).worker;
  return fleet.workers.findLast((worker) => worker.name === name && alive(worker))!;
};
const killAll = () => Promise.all(fleet.workers.filter(alive).map((worker) => worker.kill('SIGKILL')));

// A task whose first turn ended, now in a second turn that sleeps a minute on its worker.
async function inSecondTurn(): Promise<{ task: DispatchedTask; holder: FleetWorker; before: TaskRow }> {
  const task = await fleet.dispatch.dispatch({ prompt: 'first turn' });
  expect(await fleet.dispatch.settle(task)).toMatchObject({ state: 'idle' });
  await fleet.dispatch.continue(task, 'sleep 60000');
  await waitFor('the second turn running', 30_000, async () => {
    const lines = await taskHistory(fleet.db.pool, task.task_id);
    return (
      (await row(task.task_id)).state === 'working' &&
      lines.some((line) => line.message.startsWith('scripted executor: sleep'))
    );
  });
  return { task, holder: await holderOf(task.task_id), before: await row(task.task_id) };
}

// The row failed `worker_lost` with the next epoch, and one history line of that epoch saying so.
async function expectFailedLost(id: string, before: TaskRow, message: RegExp): Promise<TaskRow> {
  const after = await row(id);
  expect(after).toMatchObject({
    state: 'failed',
    epoch: before.epoch + 1,
    worker: before.worker,
    error: { type: 'worker_lost', message: expect.stringMatching(message) },
  });
  const lines = (await taskHistory(fleet.db.pool, id)).filter((line) => line.epoch === before.epoch + 1);
  expect(lines.map((line) => line.message)).toEqual([expect.stringMatching(/worker_lost\)$/)]);
  return after;
}

describe('a worker lost during a later turn', () => {
  it('fails the task worker_lost in a follower’s settle when no worker is left, and its restart changes nothing', async () => {
    await fleet.startWorker('alone');
    const { task, holder, before } = await inSecondTurn();
    await holder.kill('SIGKILL');
    const killed = Date.now();
    const outcome = await fleet.dispatch.settle(task, { signal: AbortSignal.timeout(30_000) });
    const took = (Date.now() - killed) / 1_000;
    expect(outcome).toEqual({
      state: 'lost',
      error: { type: 'worker_lost', message: expect.stringMatching(/its worker alone was lost \(last heartbeat /) },
    });
    // Lost past 6 heartbeats of 1 s, the last up to 1 s before the kill (more on a loaded machine), then at most a
    // poll of the settle (250 ms): about 5-6 s, bounded at 12.
    expect(took).toBeGreaterThan(3);
    expect(took).toBeLessThan(12);
    const failed = await expectFailedLost(task.task_id, before, /^Task task-\w+: its worker alone was lost/);
    const history = await taskHistory(fleet.db.pool, task.task_id);

    const back = await fleet.startWorker('alone', { root: holder.root });
    await waitFor('the restarted worker taking tasks', 30_000, async () =>
      /history: 1 task\(s\) marked worker_lost[\s\S]*queue mode: taking tasks from/.test(await workerLog(back)),
    );
    expect(await row(task.task_id)).toEqual(failed);
    expect(await taskHistory(fleet.db.pool, task.task_id)).toEqual(history);
    await killAll();
  }, 120_000);

  it('fails it in a live worker’s heartbeat pass, with nobody settling it', async () => {
    await Promise.all(['b1', 'b2'].map((name) => fleet.startWorker(name)));
    const { task, holder, before } = await inSecondTurn();
    await holder.kill('SIGKILL');
    const other = fleet.workers.find((worker) => worker.name !== holder.name && alive(worker))!;
    await waitFor('the task failed', 30_000, async () => (await row(task.task_id)).state === 'failed');
    await expectFailedLost(task.task_id, before, new RegExp(`its worker ${holder.name} was lost`));
    await waitFor(`${other.name} logging it`, 10_000, async () =>
      (await workerLog(other)).includes(`task ${task.task_id}: failed worker_lost (epoch ${before.epoch + 1})`),
    );
    await killAll();
  }, 120_000);

  it('fails it at once when its worker restarts before the registry counts it lost', async () => {
    // 10 s heartbeats: lost only after a minute, so nothing but the restart can end the turn here.
    await fleet.startWorker('slow', { env: { AGENCY_FLEET_HEARTBEAT_SECONDS: '10' } });
    const { task, holder, before } = await inSecondTurn();
    await holder.kill('SIGKILL');
    await fleet.startWorker('slow', { root: holder.root, env: { AGENCY_FLEET_HEARTBEAT_SECONDS: '10' } });
    const outcome = await fleet.dispatch.settle(task, { signal: AbortSignal.timeout(30_000) });
    expect(outcome).toMatchObject({
      state: 'lost',
      error: { message: expect.stringMatching(/its worker slow restarted/) },
    });
    await expectFailedLost(task.task_id, before, /its worker slow restarted while a turn ran/);
    await killAll();
  }, 120_000);
});

describe('a worker lost during a first turn', () => {
  it('is pg-boss’s to hand on: the pass leaves the task while its job is live, and another worker runs it', async () => {
    await Promise.all(['c1', 'c2'].map((name) => fleet.startWorker(name)));
    const task = await fleet.dispatch.dispatch({ prompt: 'sleep 8000' });
    const holder = await holderOf(task.task_id);
    await holder.kill('SIGKILL');
    // Lost after 6 s, its lease lapsing after 10 (and up to 5 more before pg-boss looks): the pass runs meanwhile.
    const outcome = await fleet.dispatch.settle(task, { signal: AbortSignal.timeout(90_000) });
    expect(outcome).toMatchObject({ state: 'idle', task: { output: 'slept 8000' } });
    const after = await row(task.task_id);
    expect(after).toMatchObject({ state: 'idle', epoch: 2, error: null });
    expect(after.worker).not.toBe(holder.name);
    await killAll();
  }, 120_000);
});
