// A worker killed between saving a task's end in its history and writing it to the database: restarted, it writes
// that end (fenced), so the task is not run again; a run it lost, or a task taken since by another, is left alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TempPostgres } from '../../../test/support/postgres.ts';
import type { HistoryRecord } from '../api/worker-schemas.ts';
import { type FleetDatabase, openFleetDatabase } from './database.ts';
import { createTaskMirror } from './task-mirror.ts';
import { insertTask, readTask, takeTask, taskHistory } from './task-rows.ts';
import { commitUnsentEnds } from './unsent-ends.ts';

let pg: TempPostgres;
let db: FleetDatabase;
beforeAll(async () => {
  pg = await startPostgres();
  db = openFleetDatabase(pg.url);
  await db.migrate();
}, 120_000);
afterAll(async () => {
  await db?.close();
  await pg?.stop();
});

const session = 'a3d4c1f2-5b6e-4c7d-8e9f-0a1b2c3d4e5f';
const time = '2026-01-01T00:00:00.000Z';

async function runningOn(worker: string, id: string): Promise<number> {
  await insertTask(db.pool, {
    id,
    executor: 'builtin',
    request: { prompt: 'p', session_id: session },
    sessionId: session,
    rerunOnLoss: false,
  });
  return (await takeTask(db.pool, id, worker))!.epoch;
}

function record(id: string, state: HistoryRecord['state'], error: HistoryRecord['error'] = null): HistoryRecord {
  const log = [{ time, level: 'info', message: 'turn 1: p' }];
  return {
    task_id: id,
    session_id: session,
    state,
    prompt: 'p',
    turns: 1,
    started_at: time,
    finished_at: time,
    duration_seconds: 1,
    output: state === 'completed' ? 'the answer' : null,
    error,
    usage: null,
    cost_usd: null,
    model: null,
    workdir: null,
    log,
    stdout: '',
    stderr: '',
  } as unknown as HistoryRecord;
}

describe('ends saved before a crash and never sent', () => {
  it('are written at restart, fenced by their epoch, and the task is not taken again', async () => {
    const stale: string[] = [];
    const mirror = createTaskMirror({
      pool: db.pool,
      now: Date.now,
      onStale: (id) => stale.push(id),
      onError: () => undefined,
    });
    await runningOn('w1', 'task-ended');
    await runningOn('w1', 'task-lost');
    await runningOn('w1', 'task-unknown');
    await runningOn('w1', 'task-taken');
    const taken = await takeTask(db.pool, 'task-taken', 'w2'); // w1's lease lapsed; w2 has it now
    await runningOn('w2', 'task-of-w2');
    const local: Record<string, HistoryRecord> = {
      'task-ended': record('task-ended', 'completed'),
      'task-lost': record('task-lost', 'failed', { type: 'worker_lost', message: 'the worker stopped' }),
      'task-taken': record('task-taken', 'completed'),
      'task-of-w2': record('task-of-w2', 'completed'),
    };

    const written = await commitUnsentEnds(db.pool, 'w1', mirror, async (id) => local[id]);

    expect(written).toEqual(['task-ended']);
    expect(await readTask(db.pool, 'task-ended')).toMatchObject({
      state: 'completed',
      epoch: 1,
      worker: 'w1',
      result: { state: 'completed', output: 'the answer' },
    });
    expect((await taskHistory(db.pool, 'task-ended')).map(({ epoch }) => epoch)).not.toContain(2);
    expect(await takeTask(db.pool, 'task-ended', 'w3')).toBeUndefined();
    // Left to the lease: a run the restart marked lost, and one with no record here.
    expect(await readTask(db.pool, 'task-lost')).toMatchObject({ state: 'working', worker: 'w1' });
    expect(await readTask(db.pool, 'task-unknown')).toMatchObject({ state: 'working', worker: 'w1' });
    // Not w1's any more, or never: untouched.
    expect(await readTask(db.pool, 'task-taken')).toMatchObject({
      state: 'working',
      worker: 'w2',
      epoch: taken!.epoch,
    });
    expect(await readTask(db.pool, 'task-of-w2')).toMatchObject({ state: 'working', worker: 'w2' });
    expect(stale).toEqual([]);
  });
});
