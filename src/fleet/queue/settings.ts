// The fleet-mode settings, from the environment and the config's `database:`: read without loading pg or pg-boss, so
// a process decides cheaply whether it runs in queue mode.
import { databaseWhere, isPostgresUrl } from '../../config/database-key.ts';
import { AgencyError } from '../../core/errors.ts';
import { EXECUTOR_KINDS, type ExecutorKind } from '../api/worker-schemas.ts';

/** What fleet mode runs with. */
export type FleetSettings = {
  /** `AGENCY_DATABASE_URL`, else the config's `database:`: the fleet's PostgreSQL. */
  databaseUrl: string;
  /**
   * Where the URL came from, as messages name it: `AGENCY_DATABASE_URL`, or `<config file>: database`.
   * @default 'AGENCY_DATABASE_URL'
   */
  databaseSource: string;
  /** Set when both gave a URL and `AGENCY_DATABASE_URL` won over the config's `database:`. */
  overridesConfig?: boolean;
  /** `AGENCY_FLEET_EXECUTOR`: the queue directors send tasks to. @default 'builtin' */
  executor: ExecutorKind;
  /** `AGENCY_FLEET_RERUN_ON_LOSS=1`: a task whose worker is lost runs again on another; else it fails. @default false */
  rerunOnLoss: boolean;
  /** `AGENCY_FLEET_HEARTBEAT_SECONDS`: between a worker's registry heartbeats, 1–300. @default 10 */
  heartbeatSeconds: number;
};

/** A config's `database:` key and the file it is in. */
export type DatabaseKey = { database?: string | undefined; file: string };

/**
 * The fleet settings when `AGENCY_DATABASE_URL` is set or `config` has a `database:` (the variable wins), else
 * undefined (the one-machine fleet).
 * @throws AgencyError `invalid_config` naming the variable (or the file and key) and what it takes.
 */
export function fleetSettingsFrom(
  env: NodeJS.ProcessEnv = process.env,
  config?: DatabaseKey,
): FleetSettings | undefined {
  const databaseUrl = env.AGENCY_DATABASE_URL || config?.database;
  if (!databaseUrl) return undefined;
  const fromEnv = Boolean(env.AGENCY_DATABASE_URL);
  const databaseSource = fromEnv ? 'AGENCY_DATABASE_URL' : `${config!.file}: database`;
  checkDatabaseUrl(databaseUrl, databaseSource);
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
  return {
    databaseUrl,
    databaseSource,
    ...(fromEnv && config?.database ? { overridesConfig: true } : {}),
    executor: executor as ExecutorKind,
    rerunOnLoss: rerun === '1',
    heartbeatSeconds,
  };
}

/**
 * Refuses a database URL that is not a postgres:// URL, naming where it came from (`source`).
 * @throws AgencyError `invalid_config`
 */
export function checkDatabaseUrl(url: string, source = 'AGENCY_DATABASE_URL'): void {
  if (!isPostgresUrl(url))
    throw new AgencyError(
      'invalid_config',
      `${source}: must be a postgres:// URL (postgres://user:password@host:5432/database)`,
      { details: { field: fieldOf(source) } },
    );
}

/** The field a database source names: `AGENCY_DATABASE_URL`, or `database` for a config's key. */
export const fieldOf = (source: string): string => (source === 'AGENCY_DATABASE_URL' ? source : 'database');

/** The line a banner or log shows for the fleet's database: where it is and which setting named it. */
export function databaseBanner(settings: FleetSettings): string {
  const over = settings.overridesConfig ? `, over the config's database:` : '';
  return `${databaseWhere(settings.databaseUrl)} (${settings.databaseSource}${over})`;
}

export { databaseWhere } from '../../config/database-key.ts';
