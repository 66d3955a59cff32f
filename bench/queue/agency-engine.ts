// agency's fleet layer as a queue under test: tasks dispatched with `createQueueDispatch` (a row in `agency.tasks`, a
// pg-boss job), taken by real `agency worker` processes in queue mode (AGENCY_DATABASE_URL), each with a data root
// of its own and the scripted executor, which answers at once without a process or a model.
import { rm } from 'node:fs/promises';
import { createQueueDispatch, openFleetDatabase, type QueueDispatch } from '../../src/fleet/queue/index.ts';
import { startWorkerProcess, type WorkerProcess, workerRoot } from '../../test/support/worker-process.ts';
import type { QueueEngine } from './engines.ts';

/** `workers` worker processes on the database at `url`, fed through the queue dispatch. */
export function agencyEngine(url: string, workers: number): QueueEngine {
  const db = openFleetDatabase(url, { onError: (message) => console.error(`agency fleet database: ${message}`) });
  let dispatch: QueueDispatch | undefined;
  const processes: (WorkerProcess & { root: string })[] = [];
  const sent = new Map<number, { taskId: string; wallAt: number; perfAt: number }>();
  return {
    name: 'agency fleet layer',
    detail:
      `\`createQueueDispatch\` → ${workers} \`agency worker\` processes in queue mode ` +
      '(one task at a time each, as the fleet runs them)',
    pollMs: 0,
    async start() {
      await db.migrate();
      dispatch = createQueueDispatch({ db, executor: 'claude' });
      const started = await Promise.all(
        Array.from({ length: workers }, async (_, at) => {
          const root = await workerRoot(`bench-${at}`, 'port: 9000\nexecutor: claude\n');
          const worker = await startWorkerProcess(`bench-${at}`, root, { env: { AGENCY_DATABASE_URL: url } });
          return Object.assign(worker, { root });
        }),
      );
      processes.push(...started);
      await waitForRegistered(db.pool, workers);
    },
    async send(n) {
      if (!dispatch) throw new Error('agency engine: send before start');
      const wallAt = Date.now();
      const perfAt = performance.now();
      const { task_id: taskId } = await dispatch.dispatch({ prompt: `bench ${n}` });
      sent.set(n, { taskId, wallAt, perfAt });
    },
    // The turn's start as the worker recorded it (`started_at`, this machine's clock), on this process's timeline.
    async startedAt(n) {
      const task = sent.get(n);
      if (!task || !dispatch) throw new Error(`agency engine: task ${n} was not sent`);
      const outcome = await dispatch.settle({
        worker: { name: 'queue', url: '' },
        task_id: task.taskId,
        session_id: '',
      });
      if (outcome.state === 'lost' || !outcome.task.started_at)
        throw new Error(`agency engine: task ${n} ${outcome.state}, not started`);
      return task.perfAt + (Date.parse(outcome.task.started_at) - task.wallAt);
    },
    async completed() {
      const { rows } = await db.pool.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM agency.tasks WHERE state IN ('idle', 'completed')",
      );
      return rows[0]?.count ?? 0;
    },
    async stop() {
      await Promise.all(processes.map((worker) => worker.kill('SIGTERM')));
      await Promise.all(processes.map((worker) => rm(worker.root, { recursive: true, force: true })));
      await dispatch?.close();
      await db.close();
    },
  };
}

async function waitForRegistered(pool: import('pg').Pool, workers: number): Promise<void> {
  const end = Date.now() + 60_000;
  for (;;) {
    const { rows } = await pool.query<{ count: number }>(
      "SELECT count(*)::int AS count FROM agency.workers WHERE state = 'idle'",
    );
    if ((rows[0]?.count ?? 0) >= workers) return;
    if (Date.now() > end) throw new Error(`agency engine: ${workers} workers did not register within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
