import { Logger, run as runGraphile, type Runner } from 'graphile-worker';
import pg from 'pg';
import { PgBoss, type WorkOptions } from 'pg-boss';

/**
 * A queue under test, all in this process: `send(n)` enqueues job `n`, a consumer calls `onStart(n)` as its handler
 * begins the job and returns at once; `completed()` counts the jobs whose completion the queue has committed.
 */
export type QueueEngine = {
  name: string;
  detail: string;
  /** How long a job may wait for an idle consumer to look, in ms: its polling interval, or 0 when NOTIFY wakes it. */
  pollMs: number;
  start(onStart: (n: number) => void): Promise<void>;
  send(n: number): Promise<void>;
  /** For an engine whose consumers run elsewhere: when job `n` started, on `performance.now()`'s timeline. */
  startedAt?(n: number): Promise<number>;
  completed(): Promise<number>;
  stop(): Promise<void>;
};

/**
 * How a pg-boss consumer takes jobs: the options of `work`, whether the queue is woken by NOTIFY, and whether a
 * consumer asks for its next job as soon as one ends (`notifyWorker`, as agency's queue workers do).
 */
export type PgBossShape = { name: string; notify: boolean; work: WorkOptions; nextAtOnce?: boolean };

/**
 * Raw pg-boss v12: `createQueue`, `send` one job per call, `work` with `shape.work`. With `shape.notify` the instance
 * runs pg-boss's LISTEN/NOTIFY listener (`useListenNotify`) and the queue is created with `notify: true`.
 */
export function pgBossEngine(url: string, queue: string, shape: PgBossShape): QueueEngine {
  const boss = new PgBoss({ connectionString: url, useListenNotify: shape.notify, max: 10 });
  boss.on('error', (error: Error) => console.error(`pg-boss (${queue}): ${error.message}`));
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  return {
    name: shape.name,
    detail: workDetail(shape),
    pollMs: shape.notify ? 0 : (shape.work.pollingIntervalSeconds ?? 2) * 1000,
    async start(onStart) {
      await boss.start();
      await boss.createQueue(queue, { notify: shape.notify });
      let workId = '';
      workId = await boss.work<{ n: number }>(queue, shape.work, async (jobs) => {
        for (const job of jobs) onStart(job.data.n);
        if (shape.nextAtOnce) setImmediate(() => boss.notifyWorker(workId));
      });
    },
    async send(n) {
      await boss.send(queue, { n });
    },
    async completed() {
      const { rows } = await pool.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM pgboss.job WHERE name = $1 AND state = 'completed'`,
        [queue],
      );
      return rows[0]?.count ?? 0;
    },
    async stop() {
      await boss.stop({ graceful: true, timeout: 10_000 });
      await pool.end();
    },
  };
}

function workDetail(shape: PgBossShape): string {
  const { notify, work } = shape;
  const parts = [
    `batchSize ${work.batchSize ?? 1}`,
    `localConcurrency ${work.localConcurrency ?? 1}`,
    notify ? 'woken by NOTIFY' : `polling every ${work.pollingIntervalSeconds ?? 2} s`,
  ];
  if (work.burstWhenBatchFull) parts.push('bursting while batches come back full');
  if (notify) parts.push(`else polling every ${work.notifyPollingIntervalSeconds ?? 30} s`);
  if (shape.nextAtOnce) parts.push('the next fetch at once after a job');
  return parts.join(', ');
}

/** Raw graphile-worker: `addJob` one job per call, `run` with `concurrency` workers woken by LISTEN/NOTIFY. */
export function graphileEngine(url: string, concurrency: number): QueueEngine {
  let runner: Runner | undefined;
  let completed = 0;
  const silent = new Logger(() => () => undefined);
  return {
    name: 'graphile-worker',
    detail: `concurrency ${concurrency}, woken by LISTEN/NOTIFY (its default 2 s poll as the backstop)`,
    pollMs: 0,
    async start(onStart) {
      runner = await runGraphile({
        connectionString: url,
        concurrency,
        noHandleSignals: true,
        logger: silent,
        taskList: {
          bench: async (payload) => {
            onStart((payload as { n: number }).n);
          },
        },
      });
      runner.events.on('job:complete', ({ error }) => {
        if (!error) completed += 1;
      });
    },
    async send(n) {
      if (!runner) throw new Error('graphile-worker engine: send before start');
      await runner.addJob('bench', { n });
    },
    completed: async () => completed,
    async stop() {
      await runner?.stop();
    },
  };
}
