// What the fleet's reliability tests check after a run: every task done once, its history consistent with its row.
import type { Pool } from 'pg';
import type { TaskRow } from '../../src/fleet/queue/index.ts';
import { alive, type FleetWorker } from './pg-fleet.ts';

/** A task's history lines as stored: the epoch of the run that wrote each, in write order. */
type HistoryLine = { task_id: string; epoch: number; message: string };

/**
 * Problems with the tasks `ids` after a run, one line each (empty when all is well): a task missing or not `idle`
 * (lost), a history line from an epoch older than one before it or newer than the row's (fencing broken), a row
 * whose result is not the final epoch's, or, when `workers` are given, a task ended (`idle`) in the history of no
 * worker process or of more than one (completed twice).
 */
export async function runProblems(pool: Pool, ids: string[], workers?: FleetWorker[]): Promise<string[]> {
  const problems: string[] = [];
  const { rows } = await pool.query<TaskRow>('SELECT * FROM agency.tasks WHERE id = ANY($1)', [ids]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  const history = await pool.query<HistoryLine>(
    `SELECT task_id, epoch, event->>'message' AS message FROM agency.task_history WHERE task_id = ANY($1) ORDER BY seq`,
    [ids],
  );
  const lines = Map.groupBy(history.rows, (line) => line.task_id);
  const endedBy = workers && (await endedByWorker(workers));
  for (const id of ids) {
    const row = byId.get(id);
    if (!row) {
      problems.push(`${id}: no row (lost)`);
      continue;
    }
    if (row.state !== 'idle') problems.push(`${id}: ${row.state} at epoch ${row.epoch} (${row.error?.message ?? ''})`);
    if (row.result?.state !== 'idle') problems.push(`${id}: its result is ${row.result?.state ?? 'missing'}`);
    problems.push(...epochProblems(id, row.epoch, lines.get(id) ?? []));
    if (!endedBy) continue;
    const enders = endedBy.get(id) ?? [];
    if (enders.length !== 1) problems.push(`${id}: ended by ${enders.length} workers (${enders.join(', ')})`);
    else if (enders[0] !== row.worker) problems.push(`${id}: ended by ${enders[0]}, but the row names ${row.worker}`);
  }
  return problems;
}

function epochProblems(id: string, epoch: number, lines: HistoryLine[]): string[] {
  const problems: string[] = [];
  let last = 0;
  for (const line of lines) {
    if (line.epoch < last) problems.push(`${id}: a line of epoch ${line.epoch} after one of epoch ${last}`);
    if (line.epoch > epoch) problems.push(`${id}: a line of epoch ${line.epoch}, past the row's ${epoch}`);
    last = Math.max(last, line.epoch);
  }
  const starts = lines.filter((line) => line.epoch === epoch && line.message.startsWith('turn 1:'));
  if (starts.length !== 1) problems.push(`${id}: ${starts.length} starts of its final run (epoch ${epoch})`);
  return problems;
}

// Which worker processes hold each task as ended (`idle`) in their own history, through their HTTP API.
async function endedByWorker(workers: FleetWorker[]): Promise<Map<string, string[]>> {
  const ended = new Map<string, string[]>();
  const live = new Map(workers.filter(alive).map((w) => [w.name, w]));
  for (const worker of live.values()) {
    for (let page = 1; ; page++) {
      const { items, total } = await worker.json<{ items: { task_id: string; state: string }[]; total: number }>(
        `/history?page=${page}&limit=100`,
      );
      for (const item of items)
        if (item.state === 'idle' || item.state === 'completed')
          ended.set(item.task_id, [...(ended.get(item.task_id) ?? []), worker.name]);
      if (page * 100 >= total) break;
    }
  }
  return ended;
}
