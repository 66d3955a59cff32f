// The registry of workers across hosts (`agency.workers`): each worker in queue mode registers, heartbeats, and
// marks itself stopped on a clean shutdown; its health is how old its last heartbeat is.
import { hostname } from 'node:os';
import type { Pool } from 'pg';
import { AgencyError } from '../../core/errors.ts';
import { databaseUnreachable } from './database.ts';

/** A worker's health from its heartbeat's age: `late` past 2 intervals, `lost` past 6; `stopped` when it said so. */
export type RegistryHealth = 'healthy' | 'late' | 'lost' | 'stopped';

/** A worker as the registry has it. */
export type RegisteredWorker = {
  name: string;
  url: string;
  host: string;
  executors: string[];
  labels: string[];
  state: string;
  current_task: string | null;
  heartbeat_seconds: number;
  last_heartbeat: string;
  started_at: string;
  stopped_at: string | null;
  health: RegistryHealth;
  /** Seconds since the last heartbeat, as the database's clock counts. */
  heartbeat_age_seconds: number;
};

/** What a worker registers. */
export type Registration = {
  name: string;
  url: string;
  executors: string[];
  labels?: string[];
  heartbeatSeconds: number;
};

/** Registers (or re-registers, after a restart) a worker as `idle`. */
export async function registerWorker(pool: Pool, worker: Registration): Promise<void> {
  await pool.query(
    `INSERT INTO agency.workers (name, url, host, executors, labels, state, heartbeat_seconds)
     VALUES ($1, $2, $3, $4, $5, 'idle', $6)
     ON CONFLICT (name) DO UPDATE SET url = $2, host = $3, executors = $4, labels = $5, state = 'idle',
       current_task = NULL, heartbeat_seconds = $6, last_heartbeat = now(), started_at = now(), stopped_at = NULL`,
    [worker.name, worker.url, hostname(), worker.executors, worker.labels ?? [], worker.heartbeatSeconds],
  );
}

/** A heartbeat: the worker's state and task now. */
export async function heartbeat(pool: Pool, name: string, state: string, currentTask: string | null): Promise<void> {
  await pool.query(`UPDATE agency.workers SET state = $2, current_task = $3, last_heartbeat = now() WHERE name = $1`, [
    name,
    state,
    currentTask,
  ]);
}

/** Marks a worker stopped (a clean shutdown). */
export async function markStopped(pool: Pool, name: string): Promise<void> {
  await pool.query(
    `UPDATE agency.workers SET state = 'stopped', current_task = NULL, stopped_at = now() WHERE name = $1`,
    [name],
  );
}

/** Every registered worker with its health, by name. */
export async function listWorkers(pool: Pool): Promise<RegisteredWorker[]> {
  const { rows } = await pool.query<Omit<RegisteredWorker, 'health'>>(
    `SELECT name, url, host, executors, labels, state, current_task, heartbeat_seconds,
       to_char(last_heartbeat AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_heartbeat,
       to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS started_at,
       to_char(stopped_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS stopped_at,
       extract(epoch FROM now() - last_heartbeat)::float8 AS heartbeat_age_seconds
     FROM agency.workers ORDER BY name`,
  );
  return rows.map((row) => ({ ...row, health: healthOf(row) }));
}

/**
 * The registry as `agency fleet` and `agency serve` read it: {@link listWorkers}, with a database that has no registry
 * yet or cannot be reached told apart, naming `AGENCY_DATABASE_URL` (and the host, never the password).
 * @throws AgencyError `invalid_config` (no registry yet) or `network_failed` (cannot be reached)
 */
export async function readRegistry(pool: Pool, url: string): Promise<RegisteredWorker[]> {
  return listWorkers(pool).catch((error: unknown) => {
    if ((error as { code?: string }).code === '42P01')
      throw new AgencyError(
        'invalid_config',
        'AGENCY_DATABASE_URL: the database has no fleet registry yet; start a worker with AGENCY_DATABASE_URL set',
        { details: { field: 'AGENCY_DATABASE_URL' } },
      );
    throw databaseUnreachable(url, error);
  });
}

/** A registered worker, or undefined. */
export async function findWorker(pool: Pool, name: string): Promise<RegisteredWorker | undefined> {
  return (await listWorkers(pool)).find((worker) => worker.name === name);
}

/** Heartbeat intervals past which a worker is `late`, and `lost`. */
export const HEALTH_INTERVALS = { late: 2, lost: 6 } as const;

/** The health of a worker whose last heartbeat is `heartbeat_age_seconds` old. */
export function healthOf(worker: {
  state: string;
  heartbeat_seconds: number;
  heartbeat_age_seconds: number;
}): RegistryHealth {
  if (worker.state === 'stopped') return 'stopped';
  if (worker.heartbeat_age_seconds <= HEALTH_INTERVALS.late * worker.heartbeat_seconds) return 'healthy';
  return worker.heartbeat_age_seconds <= HEALTH_INTERVALS.lost * worker.heartbeat_seconds ? 'late' : 'lost';
}
