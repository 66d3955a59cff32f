// PostgreSQL restarted in the middle of a run of the fleet across hosts: the workers and the director's dispatch
// reconnect and carry on; a dispatch while the database is down fails, and nothing is acknowledged that was not
// committed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DispatchedTask } from '../../src/fleet/directors/task-dispatch.ts';
import { type PgFleet, startPgFleet, waitFor } from '../support/pg-fleet.ts';
import { runProblems } from '../support/pg-fleet-checks.ts';

let fleet: PgFleet;
beforeAll(async () => {
  fleet = await startPgFleet();
  await Promise.all(['w1', 'w2'].map((name) => fleet.startWorker(name)));
}, 120_000);
afterAll(async () => {
  await fleet?.close();
}, 60_000);

const count = async (state: string) =>
  (await fleet.db.pool.query('SELECT 1 FROM agency.tasks WHERE state = $1', [state])).rowCount ?? 0;

const heartbeats = async () =>
  new Map(
    (
      await fleet.db.pool.query<{ name: string; at: Date }>('SELECT name, last_heartbeat AS at FROM agency.workers')
    ).rows.map(({ name, at }) => [name, at.getTime()]),
  );

describe('the fleet on PostgreSQL across a database restart', () => {
  it('carries on after PostgreSQL restarts mid-run, and acknowledges nothing it did not commit', async () => {
    const before: DispatchedTask[] = [];
    for (let i = 0; i < 12; i++) before.push(await fleet.dispatch.dispatch({ prompt: `sleep ${200 + 20 * i}` }));
    // Bounded: a task whose last write was lost in the restart would stay `working` for ever.
    const signal = AbortSignal.timeout(120_000);
    const settledBefore = Promise.allSettled(before.map((task) => fleet.dispatch.settle(task, { signal })));
    await waitFor('some tasks done and some running', 60_000, async () => (await count('idle')) >= 2);

    await fleet.pg.stopServer();
    const refused = await fleet.dispatch.dispatch({ prompt: 'while the database is down' }).then(
      (task) => task,
      (error: unknown) => error as Error,
    );
    expect(refused).toBeInstanceOf(Error);
    const down = Date.now();
    await fleet.pg.startServer();

    // Every worker heartbeats again, and the tasks sent before the restart end.
    await waitFor('heartbeats after the restart', 60_000, async () => {
      const beats = await heartbeats();
      return ['w1', 'w2'].every((name) => (beats.get(name) ?? 0) > down);
    });
    const outcomes = await settledBefore;
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.state : outcome.reason))).toEqual(
      before.map(() => 'idle'),
    );

    // Tasks sent after it run as before.
    const after: DispatchedTask[] = [];
    for (let i = 0; i < 6; i++) after.push(await fleet.dispatch.dispatch({ prompt: `after ${i}` }));
    const ends = await Promise.all(after.map((task) => fleet.dispatch.settle(task, { signal })));
    expect(ends.map(({ state }) => state)).toEqual(after.map(() => 'idle'));

    const ids = [...before, ...after].map(({ task_id: id }) => id);
    expect(await runProblems(fleet.db.pool, ids, fleet.workers)).toEqual([]);
    // Nothing but the acknowledged tasks: the refused dispatch left no row and no job.
    const { rows } = await fleet.db.pool.query<{ id: string }>('SELECT id FROM agency.tasks');
    expect(rows.map(({ id }) => id).sort()).toEqual([...ids].sort());
    const { rows: jobs } = await fleet.db.pool.query<{ key: string }>(
      "SELECT singleton_key AS key FROM pgboss.job WHERE name LIKE 'agency-tasks-%'",
    );
    expect(jobs.map(({ key }) => key).sort()).toEqual([...ids].sort());
  }, 240_000);
});
