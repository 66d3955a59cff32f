// A fleet across "hosts" for reliability tests: one throwaway PostgreSQL, real `agency worker` processes in queue
// mode (AGENCY_DATABASE_URL), each with its own data root and port and the scripted executor, and a director's
// queue dispatch in this process. Everything waits on states (rows, processes), never on fixed sleeps.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createQueueDispatch,
  type FleetDatabase,
  openFleetDatabase,
  type QueueDispatch,
  type TaskRow,
} from '../../src/fleet/queue/index.ts';
import { startPostgres, type TempPostgres } from './postgres.ts';
import { startWorkerProcess, type WorkerProcess, workerRoot } from './worker-process.ts';

/** A worker process of the fleet, with its data root. */
export type FleetWorker = WorkerProcess & { name: string; root: string };

/** A running fleet; `close()` stops the workers, the dispatch, the database and the cluster. */
export type PgFleet = {
  pg: TempPostgres;
  db: FleetDatabase;
  dispatch: QueueDispatch;
  workers: FleetWorker[];
  /**
   * Starts worker `name` with a data root of its own (or `root`: a killed worker's, to start it again) and waits
   * until it is ready and registered.
   */
  startWorker(name: string, options?: { env?: Record<string, string>; root?: string }): Promise<FleetWorker>;
  /** The task rows, by id. */
  rows(): Promise<Map<string, TaskRow>>;
  close(): Promise<void>;
};

/** Starts PostgreSQL, migrates the fleet's database and opens a queue dispatch for the `claude` executor. */
export async function startPgFleet({ rerunOnLoss = true }: { rerunOnLoss?: boolean } = {}): Promise<PgFleet> {
  const pg = await startPostgres();
  const db = openFleetDatabase(pg.url, { onError: () => undefined });
  await db.migrate();
  const dispatch = createQueueDispatch({ db, executor: 'claude', rerunOnLoss, pollMs: 250 });
  const workers: FleetWorker[] = [];
  const fleet: PgFleet = {
    pg,
    db,
    dispatch,
    workers,
    async startWorker(name, { env = {}, root: given } = {}) {
      const root = given ?? (await workerRoot(name, 'port: 9000\nexecutor: claude\n'));
      const process = await startWorkerProcess(name, root, {
        env: { AGENCY_DATABASE_URL: pg.url, AGENCY_FLEET_HEARTBEAT_SECONDS: '1', ...env },
      });
      const worker = Object.assign(process, { name, root });
      workers.push(worker);
      await waitFor(`worker ${name} registered`, 30_000, async () => {
        const { rows } = await db.pool.query(
          "SELECT 1 FROM agency.workers WHERE name = $1 AND url = $2 AND state <> 'stopped'",
          [name, worker.url],
        );
        return rows.length === 1;
      });
      return worker;
    },
    async rows() {
      const { rows } = await db.pool.query<TaskRow>('SELECT * FROM agency.tasks');
      return new Map(rows.map((row) => [row.id, row]));
    },
    async close() {
      await Promise.all(workers.filter(alive).map((worker) => worker.kill('SIGKILL')));
      const roots = new Set(workers.map((worker) => worker.root));
      await Promise.all([...roots].map((root) => rm(root, { recursive: true, force: true })));
      await dispatch.close().catch(() => undefined);
      await db.close().catch(() => undefined);
      await pg.stop();
    },
  };
  return fleet;
}

/** A worker's log (`agents/<name>/agent.log` in its data root, the rolled-over part first): one JSON line each. */
export async function workerLog(worker: FleetWorker): Promise<string> {
  const file = join(worker.root, 'agents', worker.name, 'agent.log');
  const parts = await Promise.all([`${file}.1`, file].map((path) => readFile(path, 'utf8').catch(() => '')));
  return parts.join('');
}

/** Whether a worker's process has not exited (a stopped one counts as alive). */
export const alive = (worker: FleetWorker): boolean =>
  worker.child.exitCode === null && worker.child.signalCode === null;

/** Polls `check` every 50 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
