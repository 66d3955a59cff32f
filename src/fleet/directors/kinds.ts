// The kinds of director `agency director` can run. A new kind is one line here: its `type` and a loader of the
// module whose `directorKind` export is its `DirectorKind` (see `director.ts`); modules load only when used.
import type { AgencyRoot } from '../../config/agency-root.ts';
import type { DirectorType } from '../../config/director-config.ts';
import { loadInstanceCredentials } from '../../config/instance-credentials.ts';
import { readYamlConfig } from '../../config/yaml-file.ts';
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
  manager: 'the manager director is hosted by `agency worker <name>`, which reads directors/<name>/config.yaml',
};

// Checks of the configs whose daemon is not `agency director` but which have more fields than the base ones: what
// that daemon reads at start-up, credential files included.
const HOSTED_CHECKS: Partial<Record<DirectorType, (file: string, root: AgencyRoot) => Promise<void>>> = {
  manager: async (file, root) => {
    const { loadManagerConfig } = await import('./manager/manager-config.ts');
    const { worker } = await loadManagerConfig(file);
    await loadInstanceCredentials(root, worker.credentials, file, { logger: { warn() {} } });
  },
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

/**
 * Checks a director's config beyond its base fields, as its daemon would at start-up: with its kind's schema for a
 * kind `agency director` runs, with the manager's schema and credentials for a manager (`agency worker` hosts it).
 * Types with only base fields (cli, web) pass.
 *
 * @throws AgencyError `invalid_config` naming the file, each bad field's line, and the fix.
 */
export async function checkDirectorConfig(file: string, type: DirectorType, root: AgencyRoot): Promise<void> {
  const hosted = HOSTED_CHECKS[type];
  if (hosted) return hosted(file, root);
  if (!LOADERS[type]) return;
  const kind = await loadDirectorKind(type, file);
  await readYamlConfig(file, kind.configSchema, 'docs/directors.md describes it');
}
