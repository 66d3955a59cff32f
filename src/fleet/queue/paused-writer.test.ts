// A worker paused in the middle of a fenced write (SIGSTOP, a long GC, a partition) holds its task's row; the worker
// taking the task over must not wait on it for as long as it is paused. Real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TempPostgres } from '../../../test/support/postgres.ts';
import { takenTask } from '../../../test/support/fleet-task-rows.ts';
import { isConnectionLost } from './connection-lost.ts';
import { type FleetDatabase, openFleetDatabase } from './database.ts';
import { readTask, takeTask } from './task-rows.ts';

let postgres: TempPostgres;
let paused: FleetDatabase;
let taker: FleetDatabase;
beforeAll(async () => {
  postgres = await startPostgres();
  paused = openFleetDatabase(postgres.url);
  taker = openFleetDatabase(postgres.url);
  await taker.migrate();
}, 120_000);
afterAll(async () => {
  await paused?.close();
  await taker?.close();
  await postgres?.stop();
});

describe('a worker paused inside a fenced write', () => {
  it('loses its transaction after half a lease, so the take-over goes on and its late commit changes nothing', async () => {
    const id = 'task-paused-writer';
    const epoch = await takenTask(taker.pool, id, 'w1');
    // The paused worker's write: the fencing UPDATE done, then nothing more, as a process stopped before COMMIT.
    // No error listener of its own: the session ending under a client in use must not throw from its socket.
    const client = await paused.pool.connect();
    await client.query('BEGIN');
    await client.query('UPDATE agency.tasks SET updated_at = now() WHERE id = $1 AND epoch = $2', [id, epoch]);
    const started = Date.now();
    const take = await takeTask(taker.pool, id, 'w2');
    const waited = Date.now() - started;
    expect(take).toMatchObject({ epoch: epoch + 1, previousWorker: 'w1' });
    // Half the default 10 s lease, not for ever; and not at once (the row was held).
    expect(waited).toBeGreaterThan(4_000);
    expect(waited).toBeLessThan(15_000);
    // The paused worker wakes up: its session is gone, and nothing it meant to write lands.
    // The session is gone: what a paused worker gets is a lost connection, so it writes again on a new one, where the
    // epoch fence refuses the write.
    const late = await client.query('COMMIT').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(late).toBeInstanceOf(Error);
    expect(isConnectionLost(late)).toBe(true);
    client.release(true);
    expect(await readTask(taker.pool, id)).toMatchObject({ worker: 'w2', epoch: epoch + 1, state: 'working' });
  }, 60_000);
});
