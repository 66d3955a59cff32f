import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TempPostgres } from '../../../test/support/postgres.ts';
import { openFleetDatabase, type FleetDatabase } from './database.ts';
import { createQueueDispatch, type QueueDispatch } from './queue-dispatch.ts';
import { registerWorker } from './registry.ts';
import { cancelQueuedTask, takeTask } from './task-rows.ts';

let pg: TempPostgres;
let db: FleetDatabase;
let dispatch: QueueDispatch;
beforeAll(async () => {
  pg = await startPostgres();
  db = openFleetDatabase(pg.url);
  await db.migrate();
  dispatch = createQueueDispatch({ db, untilTaken: false, takeGraceMs: 2_000 });
  await registerWorker(db.pool, {
    name: 'w1',
    url: 'http://127.0.0.1:9/',
    executors: ['builtin'],
    heartbeatSeconds: 10,
  });
}, 120_000);
afterAll(async () => {
  await dispatch?.close();
  await db?.close();
  await pg?.stop();
});

const session = (n: number) => `7c8fe395-dfda-4bb9-91a6-5a4b7bec5c4${n}`;

describe("the queue dispatch's find (a director restarted between a dispatch and its record)", () => {
  it('finds the task a worker took for the placed session, naming that worker', async () => {
    const queued = await dispatch.dispatch({ prompt: 'hello', session_id: session(1) });
    await takeTask(db.pool, queued.task_id, 'w1');
    expect(await dispatch.find!({ session_id: session(1), worker: null })).toEqual({
      worker: { name: 'w1', url: 'http://127.0.0.1:9/' },
      task_id: queued.task_id,
      session_id: session(1),
    });
    // A task the director already knows is not the placement's: then there is none to follow.
    expect(
      await dispatch.find!({ session_id: session(1), worker: null }, { recorded: new Set([queued.task_id]) }),
    ).toBeUndefined();
  });

  it('finds nothing for a session never queued, or whose task was withdrawn before any worker took it', async () => {
    expect(await dispatch.find!({ session_id: session(2), worker: null })).toBeUndefined();
    const queued = await dispatch.dispatch({ prompt: 'hello', session_id: session(3) });
    expect(await cancelQueuedTask(db.pool, queued.task_id)).toBe(true);
    expect(await dispatch.find!({ session_id: session(3), worker: null })).toBeUndefined();
  });

  it('withdraws a found task no worker takes in time, as a dispatch does (agent_busy), so it can be sent again', async () => {
    await dispatch.dispatch({ prompt: 'hello', session_id: session(4) });
    await expect(dispatch.find!({ session_id: session(4), worker: null })).rejects.toMatchObject({
      code: 'agent_busy',
    });
    expect(await dispatch.find!({ session_id: session(4), worker: null })).toBeUndefined();
  });
});

describe("the queue dispatch's send", () => {
  it('withdraws the row it inserted when the job cannot be sent, so no task waits for a job that does not exist', async () => {
    const broken = createQueueDispatch({
      db: { ...db, taskQueue: () => Promise.reject(new Error('pg-boss is down')) },
      untilTaken: false,
    });
    try {
      await expect(broken.dispatch({ prompt: 'never sent', session_id: session(9) })).rejects.toThrow(
        'pg-boss is down',
      );
    } finally {
      await broken.close();
    }
    const { rows } = await db.pool.query<{ state: string }>('SELECT state FROM agency.tasks WHERE session_id = $1', [
      session(9),
    ]);
    expect(rows).toEqual([{ state: 'cancelled' }]);
    expect(await dispatch.find!({ session_id: session(9), worker: null })).toBeUndefined();
  });
});
