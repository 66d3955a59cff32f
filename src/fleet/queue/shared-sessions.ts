// Fleet sessions on shared storage: every worker that names the same directory (`fleet.shared_sessions`, or
// `AGENCY_FLEET_SHARED_SESSIONS`) puts a queue task's session directory there, by session id, so the worker that
// takes a lost task over sees the files of the run it continues.
import { constants } from 'node:fs';
import { access, lstat, mkdir, realpath, rm } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { errnoCode } from '../../core/errno.ts';
import { AgencyError } from '../../core/errors.ts';
import { sessionIdSchema } from '../api/worker-schemas.ts';

/** The environment variable that sets (and overrides) a worker's `fleet.shared_sessions`. */
export const SHARED_SESSIONS_ENV = 'AGENCY_FLEET_SHARED_SESSIONS';

/**
 * The shared sessions directory a worker uses: `AGENCY_FLEET_SHARED_SESSIONS` when set, else the config's
 * `fleet.shared_sessions`, else undefined (sessions stay under the worker's own data root). It must be an absolute
 * path to an existing, writable directory, named by its real path (no symbolic link on the way).
 *
 * @throws AgencyError `invalid_config` naming the variable or the config key, and the fix.
 */
export async function sharedSessionsDir(
  configured: string | undefined,
  { env = process.env, configFile }: { env?: NodeJS.ProcessEnv; configFile: string },
): Promise<string | undefined> {
  const fromEnv = env[SHARED_SESSIONS_ENV] || undefined;
  const path = fromEnv ?? configured;
  if (path === undefined) return undefined;
  const key = fromEnv !== undefined ? SHARED_SESSIONS_ENV : `fleet.shared_sessions in ${configFile}`;
  const bad = (what: string) =>
    new AgencyError('invalid_config', `${key}: ${what}`, {
      details: { field: fromEnv !== undefined ? SHARED_SESSIONS_ENV : 'fleet.shared_sessions' },
    });
  if (!isAbsolute(path) || path.includes('\0'))
    throw bad(`"${path}" is not an absolute path; name the shared mount, e.g. /mnt/agency-sessions`);
  const stat = await lstat(path).catch(() => undefined);
  if (!stat) throw bad(`${path} does not exist; mount the shared storage there (the same path on every host)`);
  if (stat.isSymbolicLink())
    throw bad(`${path} is a symbolic link; name the directory it points to (${await realpathOr(path)})`);
  if (!stat.isDirectory()) throw bad(`${path} is not a directory; name the shared mount's directory`);
  const real = await realpath(path);
  if (real !== resolve(path))
    throw bad(`${path} goes through a symbolic link (it is really ${real}); name the real path on every host`);
  try {
    await access(real, constants.W_OK | constants.X_OK);
  } catch {
    throw bad(`${real} is not writable by this worker; give its user write access there`);
  }
  return real;
}

async function realpathOr(path: string): Promise<string> {
  return realpath(path).catch(() => 'a missing target');
}

/**
 * The session directory `<shared>/<session id>/`, made (mode 0700) when it is missing. `fresh` empties it first: a
 * task run again from its prompt starts in an empty directory, as on the worker's own disk.
 *
 * @throws AgencyError `invalid_argument` for a session id that is not a UUID (no path can be smuggled in), and
 * `internal` for a session path on the share that is not a plain directory (a link planted there is never followed).
 */
export async function sharedSessionDir(shared: string, sessionId: string, { fresh = false } = {}): Promise<string> {
  if (!sessionIdSchema.safeParse(sessionId).success)
    throw new AgencyError('invalid_argument', `session_id: "${sessionId}" is not a session id (a UUID)`, {
      details: { field: 'session_id' },
    });
  const dir = join(shared, sessionId);
  if (fresh) await rm(dir, { recursive: true, force: true });
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error;
  }
  const stat = await lstat(dir);
  if (!stat.isDirectory() || stat.isSymbolicLink())
    throw new AgencyError(
      'internal',
      `${dir} on the shared sessions storage is not a directory (a link or a file was put there); remove it`,
      { details: { path: dir } },
    );
  return dir;
}
