// The GitHub director from its files under the data root: `directors/<name>/config.yaml`, the token in
// `credentials/github-token` (mode 0600, registered with the redactor before anything is logged), `state.json`,
// `director.log` and `workspaces/`. The director host calls this with its `TaskDispatch`; tests call it directly.
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AgencyRoot } from '../../../config/agency-root.ts';
import { directorConfigPath } from '../../../config/director-config.ts';
import { EXECUTOR_SCOPE, loadInstanceCredentials } from '../../../config/instance-credentials.ts';
import { systemTimers, type Timers } from '../../../core/clock.ts';
import { AgencyError } from '../../../core/errors.ts';
import { defaultRedactor, type Redactor } from '../../../core/redact.ts';
import { createLogger } from '../../../obs/logger.ts';
import { rollingFile } from '../../../obs/rolling-file.ts';
import { createLifecycleLog } from '../../worker/lifecycle-log.ts';
import type { TaskDispatch } from '../task-dispatch.ts';
import { createGitHubApi } from './github-api.ts';
import { cloneUrl, GITHUB_TOKEN_CREDENTIAL, loadGitHubConfig } from './github-config.ts';
import { createGitHubDirector, type GitHubDirector } from './github-director.ts';
import { fileStateStore } from './github-state.ts';
import type { DirectorLog } from './issue-context.ts';

/** What the GitHub director is opened with. */
export type OpenGitHubDirectorOptions = {
  root: AgencyRoot;
  name: string;
  dispatch: TaskDispatch;
  stopping: AbortSignal;
  signal: AbortSignal;
  timers?: Timers;
  /** @default defaultRedactor */
  redactor?: Redactor;
  /** Lifecycle lines; @default `directors/<name>/director.log` */
  log?: DirectorLog;
  /** The environment git runs with. @default process.env */
  gitEnv?: NodeJS.ProcessEnv;
};

/**
 * Opens the GitHub director `name`: its config checked, its token loaded, its state read.
 *
 * @throws AgencyError `invalid_config` naming the file and field: a bad config, a `name` that is not the directory's,
 *   a missing token file or one whose mode is not 0600.
 */
export async function openGitHubDirector(options: OpenGitHubDirectorOptions): Promise<GitHubDirector> {
  const { root, name, dispatch, stopping, signal, timers = systemTimers, redactor = defaultRedactor } = options;
  const file = directorConfigPath(root, name);
  const config = await loadGitHubConfig(file);
  if (config.name !== name)
    throw new AgencyError('invalid_config', `${file}: name: is ${config.name}, not ${name}; make it ${name}`, {
      details: { file, field: 'name' },
    });
  const token = await loadGitHubToken(root, file, redactor);
  const dir = dirname(file);
  await mkdir(join(dir, 'workspaces'), { recursive: true, mode: 0o700 });
  const log = options.log ?? directorLog(join(dir, 'director.log'), name, redactor, timers);
  return createGitHubDirector({
    config,
    api: createGitHubApi({ baseUrl: config.api_url, repo: config.repo, token, clock: timers }),
    git: {
      url: cloneUrl(config),
      token,
      author: { name: `agency ${name}`, email: `${name}@agency.invalid` },
      ...(options.gitEnv ? { env: options.gitEnv } : {}),
    },
    workspaces: join(dir, 'workspaces'),
    dispatch,
    state: await fileStateStore(join(dir, 'state.json')),
    timers,
    log,
    stopping,
    signal,
  });
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

function directorLog(file: string, name: string, redactor: Redactor, timers: Timers): DirectorLog {
  const logger = createLogger({
    level: 'info',
    destination: rollingFile(file),
    name: `agency-director:${name}`,
    redactor,
  });
  return createLifecycleLog({ logger, redactor, now: () => timers.now() });
}
