// The GitHub director as the host loads it (`type: github`): the host brings its config, `state.json`, history,
// log, dispatch and workspace locks; `run()` loads the token from `credentials/github-token` (mode 0600, registered
// with the redactor before anything is logged) and works the repository's issues until shutdown.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgencyRoot } from '../../../config/agency-root.ts';
import { EXECUTOR_SCOPE, loadInstanceCredentials } from '../../../config/instance-credentials.ts';
import type { Redactor } from '../../../core/redact.ts';
import { defineDirectorKind, type DirectorActivity, type DirectorContext } from '../director.ts';
import type { TaskDispatch } from '../task-dispatch.ts';
import { createGitHubApi } from './github-api.ts';
import { cloneUrl, type GitHubConfig, GITHUB_TOKEN_CREDENTIAL, githubConfigSchema } from './github-config.ts';
import { createGitHubDirector, type GitHubDirector } from './github-director.ts';
import { type GitHubState, githubStateSchema, initialGitHubState } from './github-state.ts';

/** What a test may put in place of the host's parts. */
export type GitHubKindOptions = {
  /** Hands the turns out instead of the host's dispatch. */
  dispatch?: TaskDispatch;
  /** The environment git runs with. @default process.env */
  gitEnv?: NodeJS.ProcessEnv;
};

/** The GitHub kind of director; `options` replace host parts in tests. */
export function githubDirectorKind(options: GitHubKindOptions = {}) {
  return defineDirectorKind({
    type: 'github',
    configSchema: githubConfigSchema,
    stateSchema: githubStateSchema,
    initialState: initialGitHubState,
    interfaces: [],
    create(context) {
      let director: GitHubDirector | undefined;
      return {
        async run() {
          director = await openDirector(context, options);
          await director.run();
        },
        status: () => director?.status() ?? idleActivity(context.config),
        routes: [],
      };
    },
  });
}

/** The kind `agency director` runs for `type: github`. */
export const directorKind = githubDirectorKind();

async function openDirector(
  context: DirectorContext<GitHubConfig, GitHubState>,
  options: GitHubKindOptions,
): Promise<GitHubDirector> {
  const { config, files, redactor } = context;
  const token = await loadGitHubToken(context.root, files.config, redactor);
  const workspaces = join(files.dir, 'workspaces');
  await mkdir(workspaces, { recursive: true, mode: 0o700 });
  return createGitHubDirector({
    ...context,
    api: createGitHubApi({ baseUrl: config.api_url, repo: config.repo, token, clock: context.timers }),
    git: {
      url: cloneUrl(config),
      token,
      author: { name: `agency ${config.name}`, email: `${config.name}@agency.invalid` },
      ...(options.gitEnv ? { env: options.gitEnv } : {}),
    },
    workspaces,
    dispatch: options.dispatch ?? context.dispatch,
  });
}

function idleActivity(config: GitHubConfig): DirectorActivity {
  return { state: 'idle', current_task: null, config: { repo: config.repo, api_url: config.api_url, issues: 0 } };
}

/**
 * The token in `AGENCY_ROOT/credentials/github-token`, registered with `redactor`.
 *
 * @throws AgencyError `invalid_config` naming `configFile`, the credential file and the fix (missing, or not 0600).
 */
export async function loadGitHubToken(root: AgencyRoot, configFile: string, redactor: Redactor): Promise<string> {
  const credentials = await loadInstanceCredentials(root, { [GITHUB_TOKEN_CREDENTIAL]: 'GITHUB_TOKEN' }, configFile, {
    redactor,
  });
  return credentials.withCredentials(EXECUTOR_SCOPE, (held) => held.get(GITHUB_TOKEN_CREDENTIAL));
}
