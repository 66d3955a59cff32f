import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TempPostgres } from '../../../test/support/postgres.ts';
import { AgencyError } from '../../core/errors.ts';
import { openFleetDatabase, type FleetDatabase } from './database.ts';
import { FLEET_SCHEMA_VERSION } from './migrations.ts';
import { createTaskMirror } from './task-mirror.ts';
import { insertTask, readTask, takeTask, taskHistory, writeTask } from './task-rows.ts';

let pg: TempPostgres;
let db: FleetDatabase;
beforeAll(async () => {
  pg = await startPostgres();
}, 120_000);
afterAll(async () => {
  await db?.close();
  await pg?.stop();
});

const request = { prompt: 'hello', session_id: '7c8fe395-dfda-4bb9-91a6-5a4b7bec5c43' };

describe('the fleet database', () => {
  it('migrates once when eight processes start at once', async () => {
    const dbs = Array.from({ length: 8 }, () => openFleetDatabase(pg.url));
    try {
      const applied = await Promise.all(dbs.map((each) => each.migrate()));
      expect(applied.flat()).toEqual([FLEET_SCHEMA_VERSION]);
      const { rows } = await dbs[0]!.pool.query('SELECT version FROM agency.schema_migrations');
      expect(rows).toEqual([{ version: FLEET_SCHEMA_VERSION }]);
      const queues = await dbs[0]!.boss.getQueues();
      expect(queues.map((queue) => queue.name)).toEqual(
        expect.arrayContaining(['agency-tasks-builtin', 'agency-tasks-claude', 'agency-tasks-dead']),
      );
    } finally {
      await Promise.all(dbs.map((each) => each.close()));
    }
    db = openFleetDatabase(pg.url);
    expect(await db.migrate()).toEqual([]);
  }, 120_000);

  it('refuses a database at a newer version, naming the variable', async () => {
    await db.pool.query("INSERT INTO agency.schema_migrations (version, name) VALUES (99, 'from the future')");
    const other = openFleetDatabase(pg.url);
    try {
      await expect(other.migrate()).rejects.toThrow(/version 99.*AGENCY_DATABASE_URL|AGENCY_DATABASE_URL.*version 99/);
    } finally {
      await other.close();
      await db.pool.query('DELETE FROM agency.schema_migrations WHERE version = 99');
    }
  });

  it('refuses a URL that is not postgres://', () => {
    for (const url of ['', 'mysql://x@y/z', 'not a url', 'http://127.0.0.1:5432/'])
      expect(() => openFleetDatabase(url)).toThrow(
        expect.objectContaining({ code: 'invalid_config', message: expect.stringContaining('AGENCY_DATABASE_URL') }),
      );
    expect(AgencyError.isInstance(catchError(() => openFleetDatabase('mysql://x')))).toBe(true);
  });

  it('fences writes by epoch: a stale run cannot overwrite the run that took over', async () => {
    const id = 'task-01jd3z8w2x4n6q8r0t2v4x6z8b';
    await insertTask(db.pool, { id, executor: 'builtin', request, sessionId: request.session_id, rerunOnLoss: true });
    const first = await takeTask(db.pool, id, 'w1');
    expect(first).toMatchObject({ epoch: 1, before: 'queued', previousWorker: null });
    const line = (message: string) => ({ time: new Date().toISOString(), level: 'info', message });
    expect(await writeTask(db.pool, id, 1, { state: 'working', events: [line('w1 started')] })).toBe(true);
    // w1's lease lapsed; w2 takes the task over with the next epoch.
    const second = await takeTask(db.pool, id, 'w2');
    expect(second).toMatchObject({ epoch: 2, before: 'working', previousWorker: 'w1' });
    expect(await writeTask(db.pool, id, 2, { state: 'completed', events: [line('w2 done')] })).toBe(true);
    // w1 wakes up and tries to write its result: rejected, nothing changes.
    expect(await writeTask(db.pool, id, 1, { state: 'failed', events: [line('w1 late')] })).toBe(false);
    expect(await readTask(db.pool, id)).toMatchObject({ state: 'completed', epoch: 2, worker: 'w2' });
    expect((await taskHistory(db.pool, id)).map(({ epoch, message }) => [epoch, message])).toEqual([
      [1, 'w1 started'],
      [2, 'w2 done'],
    ]);
    // A finished task is not taken again (a job retried after its task completed).
    expect(await takeTask(db.pool, id, 'w3')).toBeUndefined();
    expect(await takeTask(db.pool, 'task-00000000000000000000000000', 'w3')).toBeUndefined();
  });

  it('gives every take its own epoch when workers race for one task', async () => {
    const id = 'task-01jd3z8w2x4n6q8r0t2v4x6z8c';
    await insertTask(db.pool, { id, executor: 'builtin', request, sessionId: request.session_id, rerunOnLoss: true });
    const takes = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((worker) => takeTask(db.pool, id, worker)));
    expect(takes.map((take) => take?.epoch).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(takes.filter((take) => take?.before === 'queued')).toHaveLength(1);
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("a worker's task mirror", () => {
  const record = (id: string, state: 'working' | 'idle', lines: string[]) => ({
    task_id: id,
    state,
    executor: 'builtin' as const,
    exit_code: null,
    started_at: null,
    completed_at: null,
    duration_seconds: null,
    output: state === 'idle' ? 'done' : null,
    error: null,
    session_id: request.session_id,
    token_usage: null,
    cost_usd: null,
    turns: 1,
    prompt: 'hello',
    log: lines.map((message) => ({ time: new Date().toISOString(), level: 'info', message })),
    stdout: '',
    stderr: '',
  });

  it('writes with its epoch, and once another worker took the task, stops: told stale, nothing written', async () => {
    const id = 'task-01jd3z8w2x4n6q8r0t2v4x6z8d';
    await insertTask(db.pool, { id, executor: 'builtin', request, sessionId: request.session_id, rerunOnLoss: true });
    const stale: [string, number][] = [];
    const mirror = createTaskMirror({
      pool: db.pool,
      now: Date.now,
      onStale: (taskId, epoch) => stale.push([taskId, epoch]),
      onError: (_taskId, message) => expect.fail(message),
    });
    const take = await takeTask(db.pool, id, 'w1');
    mirror.hold(id, take!.epoch);
    await mirror.save(record(id, 'working', ['turn 1: hello']));
    expect(await readTask(db.pool, id)).toMatchObject({ state: 'working', epoch: 1 });
    // w1 is paused past its lease; w2 takes over and finishes.
    await takeTask(db.pool, id, 'w2');
    await writeTask(db.pool, id, 2, {
      state: 'idle',
      events: [{ time: new Date().toISOString(), level: 'info', message: 'w2 done' }],
    });
    const over = mirror.turnOver(id);
    await mirror.save(record(id, 'idle', ['turn 1: hello', 'w1 late result']));
    expect(stale).toEqual([[id, 1]]);
    expect(await over).toBeUndefined();
    expect(mirror.epochOf(id)).toBeUndefined();
    expect(await readTask(db.pool, id)).toMatchObject({
      state: 'idle',
      epoch: 2,
      worker: 'w2',
      result: { state: 'working', output: null },
    });
    expect((await taskHistory(db.pool, id)).map(({ epoch, message }) => [epoch, message])).toEqual([
      [1, 'turn 1: hello'],
      [2, 'w2 done'],
    ]);
  });
});
