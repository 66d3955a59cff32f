// Git by shell-out (`git` through execFile, never a shell): a fresh clone per issue, its branch, a commit of what the
// worker changed and a push. The token reaches git only through its environment, as an `http.extraHeader` given by
// GIT_CONFIG_COUNT/KEY/VALUE: never in argv, never in the remote URL, never in `.git/config`.
import { execFile } from 'node:child_process';
import { access, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AgencyError } from '../../../core/errors.ts';

/** How git runs: the repository's URL, the token for https remotes, and the author of the director's commits. */
export type GitOptions = {
  url: string;
  token: string;
  author: { name: string; email: string };
  /** The environment git starts from. @default process.env */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
};

/** A clone of the repository on the issue's branch. */
export type Clone = { dir: string; branch: string; base: string };

const GIT_TIMEOUT_MS = 300_000;

function gitEnv(options: GitOptions): NodeJS.ProcessEnv {
  const header = `Authorization: Basic ${Buffer.from(`x-access-token:${options.token}`).toString('base64')}`;
  return {
    ...(options.env ?? process.env),
    GIT_TERMINAL_PROMPT: '0',
    // Only transports that move data: never `ext::`, which would run a command named in the URL.
    GIT_ALLOW_PROTOCOL: 'https:http:ssh:git:file',
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: header,
  };
}

/**
 * Runs `git args` in `cwd`.
 *
 * @throws AgencyError `git_failed` with details.command (the argv, which holds no secret) and details.stderr.
 */
export function runGit(cwd: string, args: string[], options: GitOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      { cwd, env: gitEnv(options), timeout: GIT_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, signal: options.signal },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout.trim());
        const command = `git ${args.join(' ')}`;
        const said = String(stderr).trim().split('\n').slice(-5).join('\n').slice(0, 2000);
        reject(
          new AgencyError('git_failed', `${command} (in ${cwd}) failed: ${said || error.message}`, {
            details: { command, cwd, stderr: said },
            cause: error,
          }),
        );
      },
    );
  });
}

/**
 * The clone of the issue's branch at `dir`: kept when it is there already (a restart resumes in it), else a fresh
 * clone, on `branch` (from the remote's branch when a push already made it, else from the default branch).
 */
export async function prepareClone(dir: string, branch: string, options: GitOptions): Promise<Clone> {
  const exists = await access(join(dir, '.git')).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dirname(dir), { recursive: true });
    await runGit(dirname(dir), ['clone', '--quiet', '--', options.url, dir], options);
  }
  const head = await runGit(dir, ['symbolic-ref', '--short', 'refs/remotes/origin/HEAD'], options);
  const base = head.replace(/^origin\//, '');
  const current = await runGit(dir, ['rev-parse', '--abbrev-ref', 'HEAD'], options);
  if (current !== branch) {
    const remote = await runGit(dir, ['ls-remote', '--heads', 'origin', `refs/heads/${branch}`], options);
    const from = remote ? `origin/${branch}` : `origin/${base}`;
    if (remote)
      await runGit(dir, ['fetch', '--quiet', 'origin', `refs/heads/${branch}:refs/remotes/origin/${branch}`], options);
    await runGit(dir, ['checkout', '--quiet', '-B', branch, from], options);
  }
  return { dir, branch, base };
}

/**
 * Commits whatever the worker left uncommitted (if anything) and says how many commits the branch has beyond the
 * default branch.
 */
export async function commitChanges(clone: Clone, message: string, options: GitOptions): Promise<number> {
  await runGit(clone.dir, ['add', '--all'], options);
  const pending = await runGit(clone.dir, ['status', '--porcelain'], options);
  if (pending) {
    const { name, email } = options.author;
    const identity = ['-c', `user.name=${name}`, '-c', `user.email=${email}`];
    await runGit(clone.dir, [...identity, 'commit', '--quiet', '--no-verify', '-m', message], options);
  }
  const ahead = await runGit(clone.dir, ['rev-list', '--count', `origin/${clone.base}..HEAD`], options);
  return Number(ahead);
}

/** Pushes the branch to the remote (a fast-forward; the same commit pushed twice is a no-op). */
export async function pushBranch(clone: Clone, options: GitOptions): Promise<void> {
  await runGit(clone.dir, ['push', '--quiet', 'origin', `HEAD:refs/heads/${clone.branch}`], options);
}
