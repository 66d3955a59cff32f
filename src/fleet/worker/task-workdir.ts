import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import type { WorkerConfig } from '../../config/worker-config.ts';
import { AgencyError } from '../../core/errors.ts';

/**
 * The real path of a task's `workdir`: an existing absolute directory that lies, once symlinks and `..` are
 * resolved, within one of the worker's `sandbox.read_write_paths` (themselves resolved).
 *
 * @throws AgencyError `invalid_argument` (400 `validation_error`) naming the field `workdir` and what to change.
 */
export async function taskWorkdir(workdir: string, config: Pick<WorkerConfig, 'sandbox' | 'file'>): Promise<string> {
  if (!isAbsolute(workdir) || workdir.includes('\0')) throw refused(`"${workdir}" is not an absolute path`);
  let real: string;
  try {
    real = await realpath(workdir);
    if (!(await stat(real)).isDirectory()) throw new Error('not a directory');
  } catch {
    throw refused(`${workdir} is not an existing directory on this worker; create it first`);
  }
  const allowed = await Promise.all(config.sandbox.readWritePaths.map((path) => realpath(path).catch(() => path)));
  if (allowed.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)))
    return real;
  const where = real === workdir ? workdir : `${workdir} (really ${real})`;
  throw refused(
    `${where} is outside this worker's sandbox.read_write_paths ` +
      `(${allowed.join(', ') || 'none'}); add it (or a parent) there in ${config.file}`,
  );
}

function refused(why: string): AgencyError {
  return new AgencyError('invalid_argument', `workdir: ${why}`, { details: { field: 'workdir' } });
}
