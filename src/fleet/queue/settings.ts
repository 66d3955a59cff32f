// The fleet-mode settings, from the environment: read without loading pg or pg-boss, so a process decides cheaply
// whether it runs in queue mode.
import { AgencyError } from '../../core/errors.ts';
import { EXECUTOR_KINDS, type ExecutorKind } from '../api/worker-schemas.ts';

/** What fleet mode runs with. */
export type FleetSettings = {
  /** `AGENCY_DATABASE_URL`: the fleet's PostgreSQL. */
  databaseUrl: string;
  /** `AGENCY_FLEET_EXECUTOR`: the queue directors send tasks to. @default 'builtin' */
  executor: ExecutorKind;
  /** `AGENCY_FLEET_RERUN_ON_LOSS=1`: a task whose worker is lost runs again on another; else it fails. @default false */
  rerunOnLoss: boolean;
  /** `AGENCY_FLEET_HEARTBEAT_SECONDS`: between a worker's registry heartbeats, 1–300. @default 10 */
  heartbeatSeconds: number;
};

/**
 * The fleet settings when `AGENCY_DATABASE_URL` is set, else undefined (the one-machine fleet).
 * @throws AgencyError `invalid_config` naming the variable and what it takes.
 */
export function fleetSettingsFrom(env: NodeJS.ProcessEnv = process.env): FleetSettings | undefined {
  const databaseUrl = env.AGENCY_DATABASE_URL;
  if (!databaseUrl) return undefined;
  checkDatabaseUrl(databaseUrl);
  const bad = (name: string, what: string) =>
    new AgencyError('invalid_config', `${name}: ${what}`, { details: { field: name } });
  const executor = env.AGENCY_FLEET_EXECUTOR || 'builtin';
  if (!(EXECUTOR_KINDS as readonly string[]).includes(executor))
    throw bad('AGENCY_FLEET_EXECUTOR', `must be one of ${EXECUTOR_KINDS.join(', ')}, not "${executor}"`);
  const rerun = env.AGENCY_FLEET_RERUN_ON_LOSS ?? '0';
  if (!['0', '1'].includes(rerun)) throw bad('AGENCY_FLEET_RERUN_ON_LOSS', `must be 0 or 1, not "${rerun}"`);
  const heartbeat = env.AGENCY_FLEET_HEARTBEAT_SECONDS ?? '10';
  const heartbeatSeconds = Number(heartbeat);
  if (!/^\d+$/.test(heartbeat) || heartbeatSeconds < 1 || heartbeatSeconds > 300)
    throw bad('AGENCY_FLEET_HEARTBEAT_SECONDS', `must be a whole number of seconds, 1–300, not "${heartbeat}"`);
  return { databaseUrl, executor: executor as ExecutorKind, rerunOnLoss: rerun === '1', heartbeatSeconds };
}

/**
 * Refuses a database URL that is not a postgres:// URL, naming `AGENCY_DATABASE_URL`.
 * @throws AgencyError `invalid_config`
 */
export function checkDatabaseUrl(url: string): void {
  if (!URL.canParse(url) || !['postgres:', 'postgresql:'].includes(new URL(url).protocol))
    throw new AgencyError(
      'invalid_config',
      'AGENCY_DATABASE_URL: must be a postgres:// URL (postgres://user:password@host:5432/database)',
      { details: { field: 'AGENCY_DATABASE_URL' } },
    );
}

/** Where the database at `url` is, `host:port/name`: what messages and banners show, never the credentials. */
export function databaseWhere(url: string): string {
  const { hostname, port, pathname } = new URL(url);
  return `${hostname}:${port || 5432}${pathname}`;
}
