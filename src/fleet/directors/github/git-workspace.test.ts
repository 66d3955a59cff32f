// Git by shell-out against a local bare remote: a fresh clone on the issue's branch, kept across a restart, a commit
// of what was left uncommitted, a push; the token only in git's environment (never argv, never .git/config).
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../../../core/errors.ts';
import { bareRemote, commitsOn, filesOn, ISOLATED_GIT_ENV } from '../../../../test/support/git-remote.ts';
import { commitChanges, type GitOptions, prepareClone, pushBranch, runGit } from './git-workspace.ts';

const TOKEN = 'ghp_gitcanary0123456789abcdefXYZ';
let base: string;
let remote: string;
let options: GitOptions;
let argvLog: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'agency-git-ws-'));
  remote = await bareRemote(base);
  // A `git` ahead of the real one on PATH that records its argv, to show the token is never in it.
  argvLog = join(base, 'argv.log');
  const shim = join(base, 'bin');
  await mkdir(shim);
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  await writeFile(join(shim, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argvLog}'\nexec '${real}' "$@"\n`);
  await chmod(join(shim, 'git'), 0o755);
  options = {
    url: remote,
    token: TOKEN,
    author: { name: 'agency gh', email: 'gh@agency.invalid' },
    env: { ...ISOLATED_GIT_ENV, PATH: `${shim}:${process.env.PATH}` },
  };
});

describe('the git workspace', () => {
  it('clones onto the branch, commits what was left, pushes, and keeps the token out of argv and .git/config', async () => {
    const dir = join(base, 'workspaces', 'issue-4');
    const clone = await prepareClone(dir, 'agency/issue-4', options);
    expect(clone).toEqual({ dir, branch: 'agency/issue-4', base: 'main' });
    expect(await commitChanges(clone, 'nothing', options)).toBe(0);
    await writeFile(join(dir, 'fix.txt'), 'fixed\n');
    expect(await commitChanges(clone, '#4: fix', options)).toBe(1);
    await pushBranch(clone, options);
    expect(filesOn(remote, 'agency/issue-4')).toEqual(['README.md', 'fix.txt']);
    expect(commitsOn(remote, 'agency/issue-4')).toEqual(['#4: fix', 'first']);

    const header = await runGit(dir, ['config', '--get', 'http.extraHeader'], options);
    expect(header).toBe(`Authorization: Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`);
    const config = await readFile(join(dir, '.git', 'config'), 'utf8');
    expect(config).not.toContain(TOKEN);
    expect(config).not.toContain(Buffer.from(`x-access-token:${TOKEN}`).toString('base64'));
    const argv = await readFile(argvLog, 'utf8');
    expect(argv).toContain('push --quiet origin HEAD:refs/heads/agency/issue-4');
    expect(argv).not.toContain(TOKEN.slice(4));
    expect(argv).not.toContain('Basic');
  });

  it('keeps an existing clone, and starts a fresh one on the branch the remote already has', async () => {
    const dir = join(base, 'issue-5');
    const clone = await prepareClone(dir, 'agency/issue-5', options);
    await writeFile(join(dir, 'a.txt'), 'a');
    await commitChanges(clone, 'a', options);
    await pushBranch(clone, options);
    await writeFile(join(dir, 'wip.txt'), 'kept');
    expect((await prepareClone(dir, 'agency/issue-5', options)).dir).toBe(dir);
    expect(await readFile(join(dir, 'wip.txt'), 'utf8')).toBe('kept');
    const again = await prepareClone(join(base, 'issue-5-again'), 'agency/issue-5', options);
    expect(await readFile(join(again.dir, 'a.txt'), 'utf8')).toBe('a');
  });

  it('fails with git_failed naming the command and what git said, and refuses the ext:: transport', async () => {
    const error = await prepareClone(join(base, 'x'), 'b', { ...options, url: join(base, 'missing.git') }).catch(
      (e: unknown) => e,
    );
    expect(AgencyError.hasCode(error, 'git_failed')).toBe(true);
    expect((error as AgencyError).message).toMatch(/^git clone --quiet -- .*missing\.git .* failed: fatal: /s);
    expect((error as AgencyError).details).toMatchObject({ command: expect.stringMatching(/^git clone/) });
    const marker = join(base, 'ext-ran');
    const ext = await prepareClone(join(base, 'y'), 'b', { ...options, url: `ext::sh -c touch% ${marker}` }).catch(
      (e: unknown) => e,
    );
    expect((ext as AgencyError).message).toMatch(/transport 'ext' not allowed/);
    await expect(readFile(marker)).rejects.toThrow(/ENOENT/);
  });
});
