// A worker's live task events on a real PostgreSQL: appended in order with the record's lines (none twice), bounded
// per run with one marker, fenced by epoch; and read back after a seq with oversized messages cut in SQL.
import { describe, expect, it } from 'vitest';
import { useFleetDatabase } from '../../../test/support/fleet-database.ts';
import type { HistoryRecord } from '../api/worker-schemas.ts';
import { EVENT_MESSAGE_CHARS, readTaskEvents, TASK_EVENTS_LIMIT } from './task-events.ts';
import { heldTasks, takeTask } from './task-rows.ts';
import { line, takenTask, taskRecord, testMirror } from '../../../test/support/fleet-task-rows.ts';

const fleet = useFleetDatabase();

describe("a task's live events in the fleet database", () => {
  it('mirrors live lines and saved records in order, each line once, and ends the turn with one event', async () => {
    const id = 'task-01jd3z8w2x4n6q8r0t2v4x6z8c';
    const epoch = await takenTask(fleet.db.pool, id);
    const stale: string[] = [];
    const mirror = testMirror(fleet.db.pool, stale);
    mirror.hold(id, epoch);
    const log: HistoryRecord['log'] = [line('turn 1: p')];
    void mirror.save(taskRecord(id, 'working', { log: [...log] }));
    log.push(line('tool Bash: ls'));
    void mirror.append(id, { ...log[1]!, type: 'tool.call' });
    log.push(line('tool Bash done'));
    void mirror.append(id, { ...log[2]!, type: 'tool.result' });
    await mirror.save(taskRecord(id, 'idle', { log: [...log] }));
    const events = await readTaskEvents(fleet.db.pool, id, 0);
    expect(events.map(({ message, type }) => [message, type])).toEqual([
      ['turn 1: p', undefined],
      ['tool Bash: ls', 'tool.call'],
      ['tool Bash done', 'tool.result'],
      ['turn 1 over: idle, waiting for the next prompt', 'finish'],
    ]);
    expect(await readTaskEvents(fleet.db.pool, id, events[1]!.seq)).toEqual(events.slice(2));
    // A restarted worker counts the record's lines apart from the turn's end.
    expect(await heldTasks(fleet.db.pool, 'w1', 'working')).toEqual([]);
    await fleet.db.pool.query("UPDATE agency.tasks SET state = 'idle' WHERE id = $1", [id]);
    expect((await heldTasks(fleet.db.pool, 'w1', 'idle')).find((task) => task.id === id)).toMatchObject({
      lines: 3,
      events: 4,
    });
    expect(stale).toEqual([]);
  });

  it('keeps at most TASK_EVENTS_LIMIT events of a run, the last one saying the rest were left out', async () => {
    const id = 'task-01jd3z8w2x4n6q8r0t2v4x6z8d';
    const epoch = await takenTask(fleet.db.pool, id);
    const mirror = testMirror(fleet.db.pool);
    mirror.hold(id, epoch, { sentLines: 0, events: TASK_EVENTS_LIMIT - 3 });
    for (let index = 0; index < 6; index++) void mirror.append(id, line(`step ${index}`, 'tool.call'));
    await mirror.save(
      taskRecord(id, 'completed', { log: Array.from({ length: 6 }, (_, index) => line(`step ${index}`)) }),
    );
    const events = await readTaskEvents(fleet.db.pool, id, 0);
    expect(events.map((event) => event.message.slice(0, 40))).toEqual([
      'step 0',
      'step 1',
      expect.stringContaining(`this run reached ${TASK_EVENTS_LIMIT} events`),
    ]);
    expect(events[2]).toMatchObject({ level: 'warn', type: 'warning' });
  });

  it('refuses the live lines of a stale epoch and tells the worker', async () => {
    const id = 'task-01jd3z8w2x4n6q8r0t2v4x6z8e';
    const epoch = await takenTask(fleet.db.pool, id);
    const stale: string[] = [];
    const mirror = testMirror(fleet.db.pool, stale);
    mirror.hold(id, epoch);
    await fleet.db.pool.query("UPDATE agency.tasks SET state = 'working' WHERE id = $1", [id]);
    expect(await takeTask(fleet.db.pool, id, 'w2')).toMatchObject({ epoch: epoch + 1 });
    await mirror.append(id, line('late', 'tool.call'));
    expect(stale).toEqual([id]);
    expect(await readTaskEvents(fleet.db.pool, id, 0)).toEqual([]);
  });

  it('cuts a long message as it is written, to at most EVENT_MESSAGE_CHARS with the marker', async () => {
    const id = 'task-01jd3z8w2x4n6q8r0t2v4x6z8f';
    const epoch = await takenTask(fleet.db.pool, id);
    const mirror = testMirror(fleet.db.pool);
    mirror.hold(id, epoch);
    await mirror.append(id, line('y'.repeat(EVENT_MESSAGE_CHARS + 1), 'warning'));
    const { rows } = await fleet.db.pool.query<{ message: string }>(
      "SELECT event->>'message' AS message FROM agency.task_history WHERE task_id = $1",
      [id],
    );
    expect(rows[0]!.message.length).toBeLessThanOrEqual(EVENT_MESSAGE_CHARS);
    expect(rows[0]!.message).toMatch(/ … \[cut: 49 more characters\]$/);
  });
});
