import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { createBwrapSandbox } from './bwrap-sandbox.ts';
import { detectSystemMounts, type HostEntry, type SystemMount } from './system-mounts.ts';

let base: string;
let workdir: string;
const systemMounts: SystemMount[] = [
  { kind: 'ro-bind', path: '/usr' },
  { kind: 'symlink', path: '/bin', target: 'usr/bin' },
];
// Any absolute executable stands in for bwrap: wrap only builds argv.
const sandbox = () =>
  createBwrapSandbox({
    bwrapPath: '/bin/sh',
    systemMounts,
    etcPaths: ['/etc/hosts'],
  });

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'agency-bwrap-args-'));
  workdir = join(base, 'work');
  mkdirSync(join(workdir, 'git'), { recursive: true });
  mkdirSync(join(base, 'ro'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** The values following each occurrence of `flag`. */
function valuesOf(args: string[], flag: string, count = 2): string[][] {
  return args.flatMap((arg, i) => (arg === flag ? [args.slice(i + 1, i + 1 + count)] : []));
}

describe('createBwrapSandbox().wrap', () => {
  it('isolates every namespace, drops capabilities and dies with its parent', () => {
    const { file, args, cwd } = sandbox().wrap(['make', 'test'], { workdir });
    expect(file).toBe('/bin/sh');
    expect(cwd).toBe(workdir);
    for (const flag of ['--unshare-all', '--die-with-parent', '--new-session']) expect(args).toContain(flag);
    expect(args).not.toContain('--share-net');
    expect(valuesOf(args, '--cap-drop', 1)).toEqual([['ALL']]);
    expect(valuesOf(args, '--proc', 1)).toEqual([['/proc']]);
    expect(valuesOf(args, '--dev', 1)).toEqual([['/dev']]);
    expect(valuesOf(args, '--tmpfs', 1)).toEqual([['/tmp']]);
    expect(valuesOf(args, '--chdir', 1)).toEqual([[workdir]]);
    expect(args.slice(-3)).toEqual(['--', 'make', 'test']);
  });

  it('binds system directories read-only and keeps merged-usr symlinks', () => {
    const { args } = sandbox().wrap(['true'], { workdir });
    expect(valuesOf(args, '--ro-bind')).toContainEqual(['/usr', '/usr']);
    expect(valuesOf(args, '--symlink')).toEqual([['usr/bin', '/bin']]);
    expect(valuesOf(args, '--ro-bind-try')).toEqual([['/etc/hosts', '/etc/hosts']]);
  });

  it('makes only the workdir and readWritePaths writable, with nested binds after their parents', () => {
    const ro = join(base, 'ro');
    const git = join(workdir, 'git');
    const { args } = sandbox().wrap(['true'], {
      workdir,
      readOnlyPaths: [git, ro],
      readWritePaths: [],
    });
    expect(valuesOf(args, '--bind')).toEqual([[workdir, workdir]]);
    const binds = args.filter((arg) => arg === '--bind' || arg === '--ro-bind').length;
    expect(binds).toBe(4); // /usr, workdir, ro, git
    expect(args.indexOf(git)).toBeGreaterThan(args.indexOf(workdir));
    expect(args.indexOf(workdir)).toBeGreaterThan(args.indexOf('/tmp'));
  });

  it('shares the network only when allowed', () => {
    expect(sandbox().wrap(['true'], { workdir, allowNetwork: true }).args).toContain('--share-net');
  });

  it('passes the environment to bwrap itself, never on its command line', () => {
    const { args, env } = sandbox().wrap(['true'], {
      workdir,
      env: { API_TOKEN: 'tok-secret' },
    });
    expect(env).toEqual({ PATH: expect.any(String), API_TOKEN: 'tok-secret' });
    expect(args.join(' ')).not.toContain('tok-secret');
    expect(args).not.toContain('--setenv');
  });

  it('binds file mounts read-only at their sandbox path', () => {
    const mount = {
      hostPath: join(base, 'staged-0'),
      path: '/run/secrets/token',
    };
    const { args } = sandbox().wrap(['true'], { workdir, fileMounts: [mount] });
    expect(valuesOf(args, '--ro-bind')).toContainEqual([mount.hostPath, '/run/secrets/token']);
  });

  it('fails closed with the fix when bwrap is missing', () => {
    const missing = createBwrapSandbox({
      bwrapPath: 'bwrap',
      searchPath: join(base, 'empty-bin'),
    });
    let thrown: unknown;
    try {
      missing.wrap(['true'], { workdir });
    } catch (error) {
      thrown = error;
    }
    expect(AgencyError.hasCode(thrown, 'sandbox_unavailable')).toBe(true);
    expect((thrown as Error).message).toContain('apt-get install bubblewrap');
  });

  it('ignores relative PATH entries when looking up bwrap', () => {
    expect(() => createBwrapSandbox({ searchPath: '.:bin' }).wrap(['true'], { workdir })).toThrow(/not found/);
  });

  it('refuses a relative bwrapPath', () => {
    expect(() => createBwrapSandbox({ bwrapPath: './bwrap' })).toThrow(/must be absolute/);
  });
});

describe('detectSystemMounts', () => {
  it('binds real directories and recreates symlinks', () => {
    const layout: Record<string, HostEntry> = {
      '/usr': { type: 'directory' },
      '/bin': { type: 'symlink', target: 'usr/bin' },
      '/lib': { type: 'directory' },
      '/lib64': { type: 'symlink', target: '/usr/lib64' },
    };
    expect(detectSystemMounts((path) => layout[path] ?? { type: 'missing' })).toEqual([
      { kind: 'ro-bind', path: '/usr' },
      { kind: 'symlink', path: '/bin', target: 'usr/bin' },
      { kind: 'ro-bind', path: '/lib' },
      { kind: 'symlink', path: '/lib64', target: '/usr/lib64' },
    ]);
  });

  it('reads this host', () => {
    expect(detectSystemMounts()).toContainEqual({
      kind: 'ro-bind',
      path: '/usr',
    });
  });
});
