// The queues a worker in queue mode takes tasks from: one per executor and label set (`agency-tasks-<executor>` and
// `agency-tasks-<executor>/<label>/…`), of which it works every one whose labels it has. New label sets appear when a
// director first sends to them, so the queue list is read again every `refreshMs`. One task at a time: while a job is
// in hand the worker's other queues are not polled, so it does not hold jobs another worker could run.
import type { Job, JobResult, PgBoss } from 'pg-boss';
import { hasLabels } from '../../config/labels.ts';
import { errorMessage } from '../../core/errors.ts';
import { queueLabels } from './database.ts';

/** Options of {@link workLabelQueues}. */
export type LabelQueuesOptions = {
  boss: PgBoss;
  executor: string;
  /** The worker's labels. */
  labels: readonly string[];
  /** Runs one job (a batch of one) to its result. */
  handle: (jobs: Job<unknown>[]) => Promise<JobResult[]>;
  /** Told of each queue the worker starts taking tasks from. */
  onQueue: (name: string) => void;
  /** Told of a failed read of the queue list. */
  onError: (message: string) => void;
  /** Between reads of the queue list. @default 5000 */
  refreshMs?: number;
};

/** The queues being worked. */
export type LabelQueues = {
  /** The queues taken from now, sorted. */
  names(): string[];
  /** Reads the queue list now and works any new queue this worker matches. */
  refresh(): Promise<void>;
  /** Stops working every queue. */
  stop(): Promise<void>;
};

const WORK_OPTIONS = {
  batchSize: 1,
  perJobResults: true,
  pollingIntervalSeconds: 0.5,
  notifyPollingIntervalSeconds: 0.5,
} as const;

/** Works every queue of `executor` whose labels the worker has, and keeps the list current. */
export async function workLabelQueues(options: LabelQueuesOptions): Promise<LabelQueues> {
  const { boss } = options;
  const working = new Map<string, string>();
  let paused: string[] = [];
  let stopped = false;
  let busy = 0;
  let gate: Promise<void> = Promise.resolve();
  const work = async (name: string) => {
    if (stopped || working.has(name)) return;
    working.set(name, '');
    const id = await boss.work<unknown>(name, WORK_OPTIONS, (jobs) => run(name, jobs));
    working.set(name, id);
  };
  // One job at a time across the queues; the others pause meanwhile, and resume (polling at once) after it.
  const run = async (name: string, jobs: Job<unknown>[]): Promise<JobResult[]> => {
    const previous = gate;
    let release!: () => void;
    gate = new Promise((resolve) => (release = resolve));
    await previous;
    busy += 1;
    for (const [other, id] of working)
      if (other !== name && id) {
        working.delete(other);
        paused.push(other);
        void boss.offWork(other, { id, wait: false }).catch(() => undefined);
      }
    try {
      return await options.handle(jobs);
    } finally {
      const again = paused;
      paused = [];
      busy -= 1;
      release();
      const id = working.get(name);
      if (id) setImmediate(() => boss.notifyWorker(id));
      for (const other of again) void work(other).catch((error: unknown) => options.onError(errorMessage(error)));
    }
  };
  const refresh = async () => {
    if (stopped || busy > 0) return;
    for (const { name } of await boss.getQueues()) {
      const required = queueLabels(name, options.executor);
      if (!required || !hasLabels(options.labels, required) || working.has(name)) continue;
      await work(name);
      options.onQueue(name);
    }
  };
  await refresh();
  const timer = setInterval(
    () => void refresh().catch((error: unknown) => options.onError(errorMessage(error))),
    options.refreshMs ?? 5_000,
  );
  timer.unref();
  return {
    names: () => [...working.keys()].sort(),
    refresh,
    async stop() {
      stopped = true;
      clearInterval(timer);
      // Waits for a job in hand, as pg-boss's own offWork does by default.
      const all = [...working].map(([name, id]) => boss.offWork(name, { ...(id ? { id } : {}), wait: true }));
      await Promise.all(all.map((done) => done.catch(() => undefined)));
    },
  };
}
