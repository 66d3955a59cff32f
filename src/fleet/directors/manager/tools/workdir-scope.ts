import { isAbsolute, relative, sep } from 'node:path';
import { AgencyError } from '../../../../core/errors.ts';
import { resolveInScope } from '../../../../tools/guards/path-resolve.ts';

/**
 * The real path of a workdir the model named, when it lies within one of the manager's readable paths (its config's
 * `sandbox.read_only_paths`) and is a directory. The path guard resolves it, so neither `..` nor a link inside a
 * readable path leads out of it.
 *
 * @throws AgencyError `path_outside_scope` (or another `path_*` code) saying which paths are allowed.
 */
export async function checkWorkdir(workdir: string, readable: readonly string[]): Promise<string> {
  if (!isAbsolute(workdir) || workdir.includes('\0'))
    throw new AgencyError('path_invalid', `workdir "${workdir}" must be an absolute path, e.g. /srv/work/app`);
  for (const root of readable) {
    const inside = relative(root, workdir);
    if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) continue;
    const resolved = await resolveInScope([root], inside === '' ? '.' : inside, 'read');
    if (resolved.kind !== 'directory')
      throw new AgencyError('path_invalid', `workdir "${workdir}" is not a directory`, { details: { workdir } });
    return resolved.path;
  }
  const allowed = readable.length > 0 ? readable.join(', ') : 'none: the config lists no sandbox.read_only_paths';
  throw new AgencyError(
    'path_outside_scope',
    `workdir "${workdir}" is outside the paths this manager may read (${allowed}); delegate work only in those`,
    { details: { workdir } },
  );
}
