// The fleet's database: a `pg` pool for agency's tables and a pg-boss instance for the queue, on one PostgreSQL.
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { AgencyError, errorMessage } from '../../core/errors.ts';
import { EXECUTOR_KINDS } from '../api/worker-schemas.ts';
import { migrateFleet } from './migrations.ts';
import { checkDatabaseUrl, databaseWhere } from './settings.ts';

/** The queue a task for `executor` goes to. */
export const taskQueueName = (executor: string): string => `agency-tasks-${executor}`;
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
};

/** An open fleet database. */
export type FleetDatabase = {
  /** The URL it was opened with (keep it out of logs: it may hold a password). */
  url: string;
  pool: pg.Pool;
  boss: PgBoss;
  leaseSeconds: number;
  /**
   * Runs agency's migrations (under an advisory lock), starts pg-boss (which runs its own) and creates the queues;
   * safe to call from many processes at once. Resolves with the agency versions this call applied.
   */
  migrate(): Promise<number[]>;
  close(): Promise<void>;
};

/**
 * Opens (without connecting yet) the fleet's database at `url`.
 * @throws AgencyError `invalid_config` naming `AGENCY_DATABASE_URL` when the URL is not a postgres:// URL.
 */
export function openFleetDatabase(url: string, options: FleetDatabaseOptions = {}): FleetDatabase {
  checkDatabaseUrl(url);
  const leaseSeconds = Math.max(10, options.leaseSeconds ?? 10);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 5,
    application_name: options.applicationName ?? 'agency-fleet',
  });
  const report = (error: unknown) => options.onError?.(errorMessage(error));
  pool.on('error', report);
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
  return {
    url,
    pool,
    boss,
    leaseSeconds,
    migrate: () =>
      (started ??= (async () => {
        const applied = await migrateFleet(pool, 'the fleet database (AGENCY_DATABASE_URL)').catch((error: unknown) => {
          throw databaseUnreachable(url, error);
        });
        await boss.start();
        await createQueues(boss, leaseSeconds, options.retryLimit ?? 3);
        return applied;
      })()),
    async close() {
      if (started) await boss.stop({ graceful: false, close: true }).catch(report);
      await pool.end().catch(report);
    },
  };
}

async function createQueues(boss: PgBoss, leaseSeconds: number, retryLimit: number): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((queue) => queue.name));
  if (!existing.has(DEAD_LETTER_QUEUE)) await boss.createQueue(DEAD_LETTER_QUEUE, { retryLimit: 0 });
  for (const executor of EXECUTOR_KINDS) {
    const name = taskQueueName(executor);
    if (existing.has(name)) continue;
    await boss.createQueue(name, {
      deadLetter: DEAD_LETTER_QUEUE,
      heartbeatSeconds: leaseSeconds,
      // One job per task id queued or active (its singletonKey), however often a dispatch is retried.
      policy: 'exclusive',
      // The lease is the heartbeat; this only bounds a job held longer than pg-boss allows (24 h).
      expireInSeconds: 24 * 3600,
      retryLimit,
      retryDelay: 0,
      notify: true,
    });
  }
}

/**
 * A failed connection as `network_failed`, naming the database's host, port and name (never the user or password)
 * and `AGENCY_DATABASE_URL`; any other error (a query's own, an AgencyError) as it is.
 */
export function databaseUnreachable(url: string, error: unknown): unknown {
  if (AgencyError.isInstance(error) || typeof (error as { code?: unknown }).code !== 'string') return error;
  const { code } = error as { code: string };
  if (/^\d/.test(code) && code !== '57P03') return error;
  return new AgencyError(
    'network_failed',
    `the fleet database at ${databaseWhere(url)} (AGENCY_DATABASE_URL) cannot be reached: ` +
      `${errorMessage(error)}; is PostgreSQL running there?`,
    { cause: error, details: { field: 'AGENCY_DATABASE_URL' } },
  );
}
