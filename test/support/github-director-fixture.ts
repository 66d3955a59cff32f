// A GitHub director's surroundings for tests: a data root with its config.yaml and a 0600 token, a bare remote, the
// fake GitHub (test/support/github-fake/) and a scripted dispatch; `open()` makes the director from those files as
// the host does, `stop()` stops it cleanly, `crash()` leaves it as a kill would (state.json as it is).
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agencyRootAt, type AgencyRoot } from '../../src/config/agency-root.ts';
import type { DirectorLog } from '../../src/fleet/directors/director.ts';
import { githubDirectorKind } from '../../src/fleet/directors/github/github-kind.ts';
import type { GitHubState } from '../../src/fleet/directors/github/github-state.ts';
import { type RunningDirector, startDirector } from '../../src/fleet/directors/host/start-director.ts';
import { bareRemote, ISOLATED_GIT_ENV } from './git-remote.ts';
import { type GitHubFake, startGitHubFake } from './github-fake/github-fake.ts';
import { createScriptedDispatch, type Script, type ScriptedDispatch } from './scripted-dispatch.ts';

/** A unique token, for canary scans. */
export const GITHUB_TOKEN = `ghp_canary${Date.now().toString(36)}${Math.random().toString(36).slice(2, 12)}Zq`;

export type DirectorRun = {
  director: RunningDirector;
  /** Resolves once the director stopped (with the error its run failed with, if it did). */
  done: Promise<Error | undefined>;
  /** The director's lifecycle lines, `<level> <message>`. */
  lines: string[];
  /** Begins a clean shutdown and waits for the director to stop. */
  stop(): Promise<void>;
  /** Aborts at once, as a kill would leave it (the status issue stays open). */
  crash(): Promise<void>;
};

export type GitHubDirectorFixture = {
  root: AgencyRoot;
  dir: string;
  remote: string;
  fake: GitHubFake;
  dispatch: ScriptedDispatch;
  /** Writes `directors/gh/config.yaml` (YAML text) and starts the director. */
  open(): Promise<DirectorRun>;
  state(): Promise<GitHubState>;
  close(): Promise<void>;
};

/** The config the tests start from; `extra` is appended (YAML lines). */
export function githubConfigYaml(apiUrl: string, remote: string, extra = ''): string {
  return [
    'type: github',
    'name: gh',
    'repo: octo/widgets',
    `api_url: ${apiUrl}`,
    `clone_url: ${remote}`,
    'poll_interval: 100ms',
    'discovery:',
    '  method: static',
    'assignee: agency-bot',
    'approvers: [ana]',
    'prompts:',
    '  work: "You are working on issue #{{number}}: {{title}}\\n{{.Body}}"',
    '  review: "Please review your change to #{{number}}; say LGTM if it is ready."',
    'settings:',
    '  max_reviews: 2',
    '  branch_prefix: agency/issue-',
    '  initial_backoff: 50ms',
    '  max_backoff: 400ms',
    extra,
  ].join('\n');
}

/** Makes the surroundings; the config is `githubConfigYaml` with `extra`. */
export async function githubDirectorFixture(
  options: { script?: Script; extra?: string } = {},
): Promise<GitHubDirectorFixture> {
  const base = await mkdtemp(join(tmpdir(), 'agency-gh-'));
  const root = agencyRootAt(join(base, 'root'));
  const remote = await bareRemote(base);
  const fake = await startGitHubFake({ token: GITHUB_TOKEN, remote });
  const dir = join(root.directors, 'gh');
  await mkdir(dir, { recursive: true });
  await mkdir(root.credentials, { recursive: true });
  await writeFile(join(root.credentials, 'github-token'), `${GITHUB_TOKEN}\n`);
  await chmod(join(root.credentials, 'github-token'), 0o600);
  await writeFile(join(dir, 'config.yaml'), githubConfigYaml(fake.url, remote, options.extra));
  const dispatch = createScriptedDispatch(join(base, 'tasks'), options.script);
  const runs: DirectorRun[] = [];
  const open = async (): Promise<DirectorRun> => {
    const crashed = new AbortController();
    const lines: string[] = [];
    const kind = githubDirectorKind({ dispatch, gitEnv: ISOLATED_GIT_ENV });
    const director = await startDirector({
      file: join(dir, 'config.yaml'),
      root,
      version: 'test',
      port: 0,
      kind: {
        ...kind,
        create: (context) =>
          kind.create({
            ...context,
            log: teeLog(context.log, lines),
            stopping: AbortSignal.any([context.stopping, crashed.signal]),
            signal: AbortSignal.any([context.signal, crashed.signal]),
          }),
      },
    });
    const run: DirectorRun = {
      director,
      done: director.closed,
      lines,
      stop: async () => {
        await director.stop(60_000);
      },
      crash: async () => {
        crashed.abort();
        await director.closed;
      },
    };
    runs.push(run);
    return run;
  };
  return {
    root,
    dir,
    remote,
    fake,
    dispatch,
    open,
    state: async () => {
      const { readFile } = await import('node:fs/promises');
      return (JSON.parse(await readFile(join(dir, 'state.json'), 'utf8')) as { state: GitHubState }).state;
    },
    close: async () => {
      await Promise.all(runs.map((run) => run.crash()));
      await fake.close();
    },
  };
}

// The host's log, and each line in `lines` too.
function teeLog(log: DirectorLog, lines: string[]): DirectorLog {
  const tee =
    (level: keyof DirectorLog) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push(`${level} ${message}`);
      log[level](message, fields);
    };
  return { info: tee('info'), warn: tee('warn'), error: tee('error') };
}

/** Waits until `check` returns a truthy value (polling every 20 ms, up to `ms`). */
export async function until<T>(
  check: () => T | Promise<T>,
  what: string,
  ms = 15_000,
): Promise<NonNullable<Awaited<T>>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
