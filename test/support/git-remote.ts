// A local bare git repository to stand for a GitHub repository's remote: `main` with one commit.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** An environment for git that ignores the machine's own git config. */
export const ISOLATED_GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: ISOLATED_GIT_ENV, encoding: 'utf8' }).trim();
}

/** Creates `<dir>/remote.git` with a README on `main`; returns its path. */
export async function bareRemote(dir?: string): Promise<string> {
  const base = dir ?? (await mkdtemp(join(tmpdir(), 'agency-git-remote-')));
  const remote = join(base, 'remote.git');
  git(base, 'init', '--quiet', '--bare', '--initial-branch=main', remote);
  const seed = await mkdtemp(join(tmpdir(), 'agency-git-seed-'));
  git(seed, 'init', '--quiet', '--initial-branch=main');
  await writeFile(join(seed, 'README.md'), '# widgets\n');
  git(seed, 'add', 'README.md');
  git(seed, '-c', 'user.name=Owner', '-c', 'user.email=owner@example.com', 'commit', '--quiet', '-m', 'first');
  git(seed, 'push', '--quiet', remote, 'main');
  await rm(seed, { recursive: true, force: true });
  return remote;
}

/** The files of `branch` in the bare remote. */
export function filesOn(remote: string, branch: string): string[] {
  return git(remote, 'ls-tree', '--name-only', '-r', branch).split('\n').filter(Boolean).sort();
}

/** The subjects of `branch`'s commits, newest first. */
export function commitsOn(remote: string, branch: string): string[] {
  return git(remote, 'log', '--format=%s', branch).split('\n').filter(Boolean);
}
