import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AgencyError } from '../core/errors.ts';

/** A secret file of a server: a regular file, readable by its owner only, or refused naming the fix. */
export async function readSecretFile(file: string): Promise<Buffer | undefined> {
  const stats = await lstat(file).catch(() => undefined);
  if (!stats) return undefined;
  if (!stats.isFile())
    throw new AgencyError('invalid_config', `${file} is not a regular file (a link?); remove it and start again`, {
      details: { file },
    });
  if ((stats.mode & 0o077) !== 0)
    throw new AgencyError(
      'invalid_config',
      `${file} is readable by others (mode ${(stats.mode & 0o777).toString(8)}); fix it with: chmod 600 ${file}`,
      { details: { file } },
    );
  return readFile(file);
}

/** Creates a secret file, mode 0600; fails if it exists. */
export async function writeSecretFile(file: string, data: string | Uint8Array): Promise<void> {
  await writeFile(file, data, { mode: 0o600, flag: 'wx' });
}

/**
 * The API token: `AGENCY_TOKEN` when set; otherwise `<dir>/token` (`<root>/server/token` for `agency serve`, the
 * instance directory for a worker), generated (256 random bits, mode 0600) on the first start, when `generated` is
 * true and the caller prints it once. A token file readable by others is refused, naming the `chmod 600` fix.
 */
export async function apiToken(dir: string, env: NodeJS.ProcessEnv = process.env) {
  const fromEnv = env.AGENCY_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < 16)
      throw new AgencyError(
        'invalid_config',
        'AGENCY_TOKEN is too short: use at least 16 characters (e.g. openssl rand -hex 32)',
      );
    return { token: fromEnv, file: undefined, generated: false };
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'token');
  const existing = await readSecretFile(file);
  if (existing) return { token: existing.toString('utf8').trim(), file, generated: false };
  const token = randomBytes(32).toString('hex');
  await writeSecretFile(file, `${token}\n`);
  return { token, file, generated: true };
}
