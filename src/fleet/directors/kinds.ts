// The kinds of director `agency director` can run. A new kind is one line here: its `type` and a loader of the
// module whose `directorKind` export is its `DirectorKind` (see `director.ts`); modules load only when used.
import type { DirectorType } from '../../config/director-config.ts';
import { AgencyError } from '../../core/errors.ts';
import type { DirectorKind } from './director.ts';

type KindLoader = () => Promise<{ directorKind: DirectorKind }>;

const LOADERS: Partial<Record<DirectorType, KindLoader>> = {
  scheduler: () => import('./scheduler/scheduler-kind.ts'),
  github: () => import('./github/github-kind.ts'),
};

// Types a config may declare that are not run by `agency director`, and what runs them instead.
const ELSEWHERE: Partial<Record<DirectorType, string>> = {
  cli: 'the CLI director is `agency task`, a one-shot command; it has no daemon',
  web: 'the dashboard is served by `agency serve`',
};

/** The director kinds this build can run, by type. */
export function directorTypes(): DirectorType[] {
  return Object.keys(LOADERS) as DirectorType[];
}

/**
 * Loads the kind of director for `type`.
 *
 * @throws AgencyError `invalid_config` naming the field `type` when no daemon runs that type, and saying what does.
 */
export async function loadDirectorKind(type: DirectorType, file: string): Promise<DirectorKind> {
  const loader = LOADERS[type];
  if (!loader) {
    const why = ELSEWHERE[type] ?? `this build of agency has no ${type} director`;
    throw new AgencyError(
      'invalid_config',
      `${file}: type: ${type}: ${why}; \`agency director\` runs ${directorTypes().join(', ') || 'none'}`,
      { details: { file, field: 'type' } },
    );
  }
  const { directorKind } = await loader();
  return directorKind;
}
