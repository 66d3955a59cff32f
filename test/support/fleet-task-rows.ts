// Task rows and worker records for tests of the fleet database (src/fleet/queue/) on a real PostgreSQL.
import type { Pool } from 'pg';
import type { HistoryRecord } from '../../src/fleet/api/worker-schemas.ts';
import type { TaskMirror } from '../../src/fleet/queue/task-mirror.ts';
import { createTaskMirror } from '../../src/fleet/queue/task-mirror.ts';
import { insertTask, takeTask } from '../../src/fleet/queue/task-rows.ts';

export const SESSION = '7c8fe395-dfda-4bb9-91a6-5a4b7bec5c43';
const TIME = '2026-01-01T00:00:00.000Z';

/** A lifecycle line of a record (with its agent.events `type` when given). */
export const line = (message: string, type?: string) => ({
  time: TIME,
  level: 'info',
  message,
  ...(type ? { type } : {}),
});

/** Inserts task `id` (prompt `p`) and lets `worker` take it; resolves with the epoch of that take. */
export async function takenTask(pool: Pool, id: string, worker = 'w1'): Promise<number> {
  await insertTask(pool, {
    id,
    executor: 'builtin',
    request: { prompt: 'p', session_id: SESSION },
    sessionId: SESSION,
    rerunOnLoss: false,
  });
  return (await takeTask(pool, id, worker))!.epoch;
}

/** A worker's record of task `id` in `state`, with `log` and the other fields as a finished turn leaves them. */
export function taskRecord(
  id: string,
  state: HistoryRecord['state'],
  { log = [line('turn 1: p')], output = null, error = null }: Partial<HistoryRecord> = {},
): HistoryRecord {
  return {
    task_id: id,
    session_id: SESSION,
    state,
    prompt: 'p',
    turns: 1,
    started_at: TIME,
    finished_at: null,
    duration_seconds: null,
    output,
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

/** A task mirror on `pool` whose stale writes are collected in `stale`. */
export function testMirror(pool: Pool, stale: string[] = []): TaskMirror {
  return createTaskMirror({ pool, now: Date.now, onStale: (id) => stale.push(id), onError: () => undefined });
}
