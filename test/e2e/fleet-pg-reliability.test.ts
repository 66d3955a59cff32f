// The fleet across hosts under faults, on a real PostgreSQL with real `agency worker` processes in queue mode:
// workers killed with SIGKILL at random moments, a worker paused past its lease, payloads that are not tasks.
// AGENCY_FLEET_RELIABILITY_FULL=1 runs the kill test at full size (100 tasks, 5 kills) instead of 30 tasks, 2 kills.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DispatchedTask } from '../../src/fleet/directors/task-dispatch.ts';
import { DEAD_LETTER_QUEUE, taskQueueName } from '../../src/fleet/queue/index.ts';
import { alive, type FleetWorker, type PgFleet, startPgFleet, waitFor } from '../support/pg-fleet.ts';
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
});

const current = (name: string): FleetWorker => {
  const worker = fleet.workers.findLast((each) => each.name === name && alive(each));
  if (!worker) throw new Error(`no live worker ${name}`);
  return worker;
};

// A worker's task right now, from the rows: the one it holds `working`.
async function workingTask(name: string): Promise<string | undefined> {
  const { rows } = await fleet.db.pool.query<{ id: string }>(
    "SELECT id FROM agency.tasks WHERE worker = $1 AND state = 'working'",
    [name],
  );
  return rows[0]?.id;
}

describe('the fleet on PostgreSQL, under faults', () => {
  it(`loses no task and ends none twice when workers are killed at random moments (${SIZE.tasks} tasks, ${SIZE.kills} kills)`, async () => {
    const tasks: DispatchedTask[] = [];
    for (let i = 0; i < SIZE.tasks; i++)
      tasks.push(await fleet.dispatch.dispatch({ prompt: `sleep ${randomInt(50, 400)}` }));
    const settled = Promise.all(tasks.map((task) => fleet.dispatch.settle(task)));
    const killed: string[] = [];
    for (let kill = 0; kill < SIZE.kills; kill++) {
      const name = ['w1', 'w2', 'w3'][randomInt(0, 3)]!;
      const victim = current(name);
      let holding: string | undefined;
      await waitFor(`${name} working`, 60_000, async () => (holding = await workingTask(name)) !== undefined);
      await new Promise((resolve) => setTimeout(resolve, randomInt(0, 150)));
      await victim.kill('SIGKILL');
      killed.push(holding!);
      await fleet.startWorker(name, { root: victim.root });
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
    const { rows: jobs } = await fleet.db.pool.query<{ state: string; count: number }>(
      'SELECT state, count(*)::int AS count FROM pgboss.job WHERE name = $1 AND singleton_key = ANY($2) GROUP BY state',
      [taskQueueName('claude'), ids],
    );
    expect(jobs).toEqual([{ state: 'completed', count: SIZE.tasks }]);
  }, 300_000);
});

export { DEAD_LETTER_QUEUE };
