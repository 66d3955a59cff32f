// A worker killed between saving a task's end in its history and writing it to the database: restarted, it writes
// that end (fenced), so the task is not run again; a run it lost is left to its job's lease, or fails when it has
// none (a later turn); a task taken since by another is left alone.
import { describe, expect, it } from 'vitest';
import { useFleetDatabase } from '../../../test/support/fleet-database.ts';
import type { HistoryRecord } from '../api/worker-schemas.ts';
import { takenTask, taskRecord, testMirror } from '../../../test/support/fleet-task-rows.ts';
import { readTask, takeTask, taskHistory } from './task-rows.ts';
import { commitUnsentEnds } from './unsent-ends.ts';

const fleet = useFleetDatabase();

describe('ends saved before a crash and never sent', () => {
  it('are written at restart, fenced by their epoch, and the task is not taken again', async () => {
    const stale: string[] = [];
    const mirror = testMirror(fleet.db.pool, stale);
    await takenTask(fleet.db.pool, 'task-ended');
    await takenTask(fleet.db.pool, 'task-lost');
    await takenTask(fleet.db.pool, 'task-lost-later');
    // The lost run of a first turn has its job, live until its lease lapses; a later turn's has none.
    await fleet.db.boss.send(
      await fleet.db.taskQueue('builtin', []),
      { task_id: 'task-lost' },
      { singletonKey: 'task-lost' },
    );
    await takenTask(fleet.db.pool, 'task-unknown');
    await takenTask(fleet.db.pool, 'task-taken');
    const taken = await takeTask(fleet.db.pool, 'task-taken', 'w2'); // w1's lease lapsed; w2 has it now
    await takenTask(fleet.db.pool, 'task-of-w2', 'w2');
    const local: Record<string, HistoryRecord> = {
      'task-ended': taskRecord('task-ended', 'completed', { output: 'the answer' }),
      'task-lost': taskRecord('task-lost', 'failed', { error: { type: 'worker_lost', message: 'the worker stopped' } }),
      'task-lost-later': taskRecord('task-lost-later', 'failed', {
        error: { type: 'worker_lost', message: 'the worker stopped' },
      }),
      'task-taken': taskRecord('task-taken', 'completed'),
      'task-of-w2': taskRecord('task-of-w2', 'completed'),
    };

    const written = await commitUnsentEnds(fleet.db.pool, 'w1', mirror, async (id) => local[id]);

    expect(written.committed).toEqual(['task-ended']);
    expect(written.failed).toEqual([
      expect.objectContaining({ id: 'task-lost-later', epoch: 2, message: expect.stringMatching(/w1 restarted/) }),
    ]);
    expect(await readTask(fleet.db.pool, 'task-lost-later')).toMatchObject({
      state: 'failed',
      epoch: 2,
      error: { type: 'worker_lost' },
    });
    expect(await readTask(fleet.db.pool, 'task-ended')).toMatchObject({
      state: 'completed',
      epoch: 1,
      worker: 'w1',
      result: { state: 'completed', output: 'the answer' },
    });
    expect((await taskHistory(fleet.db.pool, 'task-ended')).map(({ epoch }) => epoch)).not.toContain(2);
    expect(await takeTask(fleet.db.pool, 'task-ended', 'w3')).toBeUndefined();
    // Left to the lease: a run the restart marked lost whose job is live, and one with no record here.
    expect(await readTask(fleet.db.pool, 'task-lost')).toMatchObject({ state: 'working', worker: 'w1' });
    expect(await readTask(fleet.db.pool, 'task-unknown')).toMatchObject({ state: 'working', worker: 'w1' });
    // Not w1's any more, or never: untouched.
    expect(await readTask(fleet.db.pool, 'task-taken')).toMatchObject({
      state: 'working',
      worker: 'w2',
      epoch: taken!.epoch,
    });
    expect(await readTask(fleet.db.pool, 'task-of-w2')).toMatchObject({ state: 'working', worker: 'w2' });
    expect(stale).toEqual([]);
  });
});
