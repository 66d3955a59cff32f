// `database:` in a worker's or a director's config: the fleet's PostgreSQL, as `AGENCY_DATABASE_URL` gives it. A URL
// with a password is a secret on disk, so the file that holds one must be readable by its owner only.
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { AgencyError } from '../core/errors.ts';

/** Whether `url` is a postgres:// (or postgresql://) URL. */
export function isPostgresUrl(url: string): boolean {
  return URL.canParse(url) && ['postgres:', 'postgresql:'].includes(new URL(url).protocol);
}

/** Where the database at `url` is, `host:port/name`: what messages and banners show, never the credentials. */
export function databaseWhere(url: string): string {
  const { hostname, port, pathname } = new URL(url);
  return `${hostname}:${port || 5432}${pathname}`;
}

/** `database:` in a config. */
export const databaseKeySchema = z
  .string({ error: 'must be a postgres:// URL, e.g. postgres://agency@db.internal:5432/agency' })
  .refine(isPostgresUrl, 'must be a postgres:// URL, e.g. postgres://agency@db.internal:5432/agency');

/**
 * Refuses a config whose `database:` URL holds a password while the file is readable by its group or others.
 * @throws AgencyError `invalid_config` naming the file, its mode and the fix.
 */
export async function checkDatabaseSecret(file: string, url: string | undefined): Promise<void> {
  if (url === undefined || new URL(url).password === '') return;
  const { mode } = await stat(file);
  if ((mode & 0o077) === 0) return;
  throw new AgencyError(
    'invalid_config',
    `${file}: database: the URL holds a password and the file is readable by others ` +
      `(mode ${(mode & 0o777).toString(8).padStart(4, '0')}); chmod 600 ${file}, ` +
      'or leave the password out and give it in AGENCY_DATABASE_URL or ~/.pgpass instead',
    { details: { field: 'database' } },
  );
}
