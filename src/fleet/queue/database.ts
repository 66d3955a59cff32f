// The fleet's database: a `pg` pool for agency's tables and a pg-boss instance for the queue, on one PostgreSQL.
import pg from 'pg';
import { PgBoss, type Queue } from 'pg-boss';
import { canonicalLabels } from '../../config/labels.ts';
import { AgencyError, errorMessage } from '../../core/errors.ts';
import { EXECUTOR_KINDS } from '../api/worker-schemas.ts';
import { migrateFleet } from './migrations.ts';
import { checkDatabaseUrl, databaseWhere, fieldOf } from './settings.ts';

/**
 * The queue a task for `executor` requiring `labels` goes to: `agency-tasks-<executor>` without labels, else
 * `agency-tasks-<executor>/<label>/<label>…` with the labels sorted (one queue per label set).
 */
export const taskQueueName = (executor: string, labels: readonly string[] = []): string =>
  [`agency-tasks-${executor}`, ...canonicalLabels(labels)].join('/');

/** The labels a task queue of `executor` requires, or undefined when `name` is not one of its task queues. */
export function queueLabels(name: string, executor: string): string[] | undefined {
  const base = taskQueueName(executor);
  if (name === base) return [];
  return name.startsWith(`${base}/`) ? name.slice(base.length + 1).split('/') : undefined;
}
/** Where a job whose payload fails validation ends, with the reason. */
export const DEAD_LETTER_QUEUE = 'agency-tasks-dead';

/** Options of {@link openFleetDatabase}. */
export type FleetDatabaseOptions = {
  /**
   * The lease of a taken task, in seconds (pg-boss `heartbeatSeconds`, at least 10): the worker renews it every half;
   * a task whose lease lapses is retried on another worker. @default 10
   */
  leaseSeconds?: number;
  /** How many times a task whose worker was lost is taken again. @default 3 */
  retryLimit?: number;
  /** Most connections of agency's pool (pg-boss has its own). @default 5 */
  poolSize?: number;
  /** Told of errors pg-boss reports in the background (a lost connection, a failed maintenance run). */
  onError?: (message: string) => void;
  /** The `application_name` of agency's pool, as `pg_stat_activity` shows it. @default 'agency-fleet' */
  applicationName?: string;
  /** Where the URL came from, as errors name it: `AGENCY_DATABASE_URL` or `<config file>: database`. */
  source?: string;
};

/** An open fleet database. */
export type FleetDatabase = {
  /** The URL it was opened with (keep it out of logs: it may hold a password). */
  url: string;
  /** Where the URL came from, as errors name it. @default 'AGENCY_DATABASE_URL' */
  source: string;
  pool: pg.Pool;
  boss: PgBoss;
  leaseSeconds: number;
  /** Creates the task queue of `executor` and `labels` unless it exists (after `migrate()`); resolves its name. */
  taskQueue(executor: string, labels: readonly string[]): Promise<string>;
  /**
   * Runs agency's migrations (under an advisory lock), starts pg-boss (which runs its own) and creates the queues;
   * safe to call from many processes at once. Resolves with the agency versions this call applied.
   */
  migrate(): Promise<number[]>;
  close(): Promise<void>;
};

/**
 * Opens (without connecting yet) the fleet's database at `url`.
 * @throws AgencyError `invalid_config` naming its source (`AGENCY_DATABASE_URL`) when it is not a postgres:// URL.
 */
export function openFleetDatabase(url: string, options: FleetDatabaseOptions = {}): FleetDatabase {
  const source = options.source ?? 'AGENCY_DATABASE_URL';
  checkDatabaseUrl(url, source);
  const leaseSeconds = Math.max(10, options.leaseSeconds ?? 10);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 5,
    application_name: options.applicationName ?? 'agency-fleet',
    // A fenced write is a short transaction that holds its task's row. A worker paused in one (SIGSTOP, a long GC, a
    // partition) would hold that row for as long as it is paused, and the worker taking the task over would wait on
    // it. PostgreSQL ends such a session after half a lease, rolling it back, so the take-over goes on.
    idle_in_transaction_session_timeout: Math.ceil((leaseSeconds * 1_000) / 2),
  });
  const report = (error: unknown) => options.onError?.(errorMessage(error));
  pool.on('error', report);
  // The pool listens for errors only on its idle clients. A client in use whose session ends between two statements
  // (the idle-in-transaction timeout above, a restart) would otherwise throw from its socket; its next statement
  // fails as a lost connection instead, and the pool drops it when it is released.
  pool.on('connect', (client) => client.on('error', report));
  const boss = new PgBoss({
    connectionString: url,
    schema: 'pgboss',
    max: 4,
    useListenNotify: true,
    application_name: 'agency-fleet',
    // A lapsed lease is found by pg-boss's monitor pass (every 60 s by default); look every half lease instead, so
    // a lost worker's task is taken again within about 1.5 leases.
    superviseIntervalSeconds: Math.ceil(leaseSeconds / 2),
    monitorIntervalSeconds: Math.ceil(leaseSeconds / 2),
  });
  boss.on('error', report);
  let started: Promise<number[]> | undefined;
  const queueOptions = taskQueueOptions(leaseSeconds, options.retryLimit ?? 3);
  const created = new Set<string>();
  return {
    url,
    source,
    pool,
    boss,
    leaseSeconds,
    migrate: () =>
      (started ??= (async () => {
        const applied = await migrateFleet(pool, `the fleet database (${source})`).catch((error: unknown) => {
          throw databaseUnreachable(url, error, source);
        });
        await boss.start();
        await createQueues(boss, queueOptions);
        return applied;
      })()),
    async taskQueue(executor, labels) {
      const name = taskQueueName(executor, labels);
      if (created.has(name)) return name;
      // pg-boss's create_queue does nothing for a queue that exists, so processes may race here.
      if (!(await boss.getQueue(name))) await boss.createQueue(name, queueOptions);
      created.add(name);
      return name;
    },
    async close() {
      if (started) await boss.stop({ graceful: false, close: true }).catch(report);
      await pool.end().catch(report);
    },
  };
}

// Every task queue's options, with or without labels.
function taskQueueOptions(leaseSeconds: number, retryLimit: number): Omit<Queue, 'name'> {
  return {
    deadLetter: DEAD_LETTER_QUEUE,
    heartbeatSeconds: leaseSeconds,
    // One job per task id queued or active (its singletonKey), however often a dispatch is retried.
    policy: 'exclusive',
    // The lease is the heartbeat; this only bounds a job held longer than pg-boss allows (24 h).
    expireInSeconds: 24 * 3600,
    retryLimit,
    retryDelay: 0,
    notify: true,
  };
}

async function createQueues(boss: PgBoss, options: Omit<Queue, 'name'>): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((queue) => queue.name));
  if (!existing.has(DEAD_LETTER_QUEUE)) await boss.createQueue(DEAD_LETTER_QUEUE, { retryLimit: 0 });
  for (const executor of EXECUTOR_KINDS) {
    const name = taskQueueName(executor);
    if (!existing.has(name)) await boss.createQueue(name, options);
  }
}

/**
 * A failed connection as `network_failed`, naming the database's host, port and name (never the user or password)
 * and where the URL came from (`source`); any other error (a query's own, an AgencyError) as it is.
 */
export function databaseUnreachable(url: string, error: unknown, source = 'AGENCY_DATABASE_URL'): unknown {
  if (AgencyError.isInstance(error) || typeof (error as { code?: unknown }).code !== 'string') return error;
  const { code } = error as { code: string };
  if (/^\d/.test(code) && code !== '57P03') return error;
  return new AgencyError(
    'network_failed',
    `the fleet database at ${databaseWhere(url)} (${source}) cannot be reached: ` +
      `${errorMessage(error)}; is PostgreSQL running there?`,
    { cause: error, details: { field: fieldOf(source) } },
  );
}
