import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { type BwrapSandboxOptions, createBwrapSandbox } from './bwrap-sandbox.ts';
import { PROC_READ_ONLY, type ProcMask, withProcFloor } from './proc-masks.ts';
import { DEFAULT_SANDBOX_LIMITS } from './sandbox-limits.ts';
import { buildSeccompFilter } from './seccomp-filter.ts';
import { detectSystemMounts, type HostEntry, type SystemMount } from './system-mounts.ts';

let base: string;
let workdir: string;
const systemMounts: SystemMount[] = [
  { kind: 'ro-bind', path: '/usr' },
  { kind: 'symlink', path: '/bin', target: 'usr/bin' },
];
const procMasks: ProcMask[] = [
  { kind: 'read-only', path: '/proc/sys' },
  { kind: 'mask-file', path: '/proc/kcore' },
  { kind: 'mask-dir', path: '/proc/acpi' },
];
// Any absolute executable stands in for bwrap: wrap only builds argv.
const sandbox = (options: Partial<BwrapSandboxOptions> = {}) =>
  createBwrapSandbox({
    bwrapPath: '/bin/sh',
    prlimitPath: '/usr/bin/prlimit',
    systemMounts,
    procMasks,
    etcPaths: ['/etc/hosts'],
    arch: 'x64',
    ...options,
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
    expect(valuesOf(args, '--tmpfs', 1)).toContainEqual(['/tmp']);
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
    const binds = valuesOf(args, '--ro-bind').filter(([source]) => source?.startsWith(base));
    expect(binds).toEqual([
      [ro, ro],
      [git, git],
    ]);
    expect(args.indexOf(git)).toBeGreaterThan(args.indexOf(workdir));
    expect(args.indexOf(workdir)).toBeGreaterThan(args.indexOf('/tmp'));
  });

  it('runs the command as nobody in a user namespace of its own, which cannot make another', () => {
    const { args } = sandbox().wrap(['true'], { workdir });
    expect(args).toContain('--unshare-user');
    expect(args).toContain('--disable-userns');
    expect(valuesOf(args, '--uid', 1)).toEqual([['65534']]);
    expect(valuesOf(args, '--gid', 1)).toEqual([['65534']]);
  });

  it('covers /proc after mounting it: knobs read-only, leaky files and hardware dirs masked', () => {
    const { args } = sandbox().wrap(['true'], { workdir });
    const proc = args.indexOf('/proc');
    const knobs = PROC_READ_ONLY.filter((path) => existsSync(path)).flatMap((path) => ['--ro-bind', path, path]);
    expect(args.slice(proc - 1, proc + 8 + knobs.length)).toEqual([
      ...['--proc', '/proc'],
      ...knobs,
      ...['--ro-bind', '/dev/null', '/proc/kcore'],
      ...['--tmpfs', '/proc/acpi', '--remount-ro', '/proc/acpi'],
    ]);
  });

  it('keeps the kernel knobs read-only when procMasks leaves them out', () => {
    const knobs = PROC_READ_ONLY.filter((path) => existsSync(path));
    expect(knobs).toContain('/proc/sys');
    for (const procMasks of [[], [{ kind: 'mask-file', path: '/proc/kcore' }] as ProcMask[]]) {
      const { args } = sandbox({ procMasks }).wrap(['true'], { workdir });
      for (const path of knobs) expect(valuesOf(args, '--ro-bind')).toContainEqual([path, path]);
    }
  });

  it('sizes /tmp and /dev/shm, and leaves / and /dev read-only', () => {
    const { args } = sandbox().wrap(['true'], { workdir, limits: { tmpBytes: 8 << 20 } });
    const dev = args.indexOf('--dev');
    expect(args.slice(dev, dev + 11)).toEqual([
      ...['--dev', '/dev', '--size', String(8 << 20), '--tmpfs', '/dev/shm', '--remount-ro', '/dev'],
      ...['--size', String(8 << 20), '--tmpfs'],
    ]);
    expect(valuesOf(args, '--remount-ro', 1).at(-1)).toEqual(['/']);
    expect(args.lastIndexOf('--remount-ro')).toBeGreaterThan(args.lastIndexOf('--bind'));
  });

  it('hands bwrap the seccomp filter on fd 3 and holds the command on fd 4 until released', () => {
    const wrapped = sandbox().wrap(['true'], { workdir });
    expect(valuesOf(wrapped.args, '--seccomp', 1)).toEqual([['3']]);
    expect(valuesOf(wrapped.args, '--block-fd', 1)).toEqual([['4']]);
    expect(wrapped.inputs?.[0]).toEqual(buildSeccompFilter('x86_64'));
    expect(wrapped.inputs?.[1]).toHaveLength(1);
    expect(wrapped.releaseInput).toBe(1);
    expect(sandbox({ arch: 'arm64' }).wrap(['true'], { workdir }).inputs?.[0]).toEqual(buildSeccompFilter('aarch64'));
  });

  it('runs the command under prlimit with its limits', () => {
    const { args } = sandbox().wrap(['make', 'test'], { workdir, limits: { processes: 50 } });
    const start = args.indexOf('--') + 1;
    expect(args.slice(start)).toEqual([
      '/usr/bin/prlimit',
      '--nproc=50',
      `--data=${DEFAULT_SANDBOX_LIMITS.memoryBytes}`,
      `--cpu=${DEFAULT_SANDBOX_LIMITS.cpuSeconds}`,
      `--fsize=${DEFAULT_SANDBOX_LIMITS.fileSizeBytes}`,
      `--nofile=${DEFAULT_SANDBOX_LIMITS.openFiles}`,
      '--core=0',
      '--',
      'make',
      'test',
    ]);
    expect(() => sandbox().wrap(['true'], { workdir, limits: { processes: 0 } })).toThrow(/limits\.processes/);
  });

  it('fails closed without prlimit in a system directory, or without a seccomp filter for the CPU', () => {
    const missing = sandbox({ prlimitPath: 'prlimit', searchPath: join(base, 'empty-bin') });
    expect(() => missing.wrap(['true'], { workdir })).toThrow(/prlimit \(util-linux\).*not found.*install util-linux/);
    const outside = sandbox({ prlimitPath: '/bin/sh', systemMounts: [{ kind: 'ro-bind', path: '/usr' }] });
    expect(() => outside.wrap(['true'], { workdir })).toThrow(/outside the system directories/);
    let thrown: unknown;
    try {
      sandbox({ arch: 'riscv64' }).wrap(['true'], { workdir });
    } catch (error) {
      thrown = error;
    }
    expect(AgencyError.hasCode(thrown, 'sandbox_unavailable')).toBe(true);
    expect((thrown as Error).message).toContain('this host is riscv64');
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

describe('withProcFloor', () => {
  const host = (present: string[]) => (path: string) =>
    (present.includes(path) ? { type: 'directory' } : { type: 'missing' }) as HostEntry;

  it('puts every kernel knob the host has first, read-only, and keeps what was added after it', () => {
    const added: ProcMask[] = [
      { kind: 'mask-dir', path: '/proc/sys/kernel' },
      { kind: 'read-only', path: '/proc/sys' },
      { kind: 'mask-file', path: '/proc/kcore' },
    ];
    expect(withProcFloor(added, host(['/proc/sys', '/proc/fs']))).toEqual([
      { kind: 'read-only', path: '/proc/sys' },
      { kind: 'read-only', path: '/proc/fs' },
      { kind: 'mask-dir', path: '/proc/sys/kernel' },
      { kind: 'mask-file', path: '/proc/kcore' },
    ]);
  });

  it('cannot be emptied', () => {
    expect(withProcFloor([], host([...PROC_READ_ONLY]))).toEqual(
      PROC_READ_ONLY.map((path) => ({ kind: 'read-only', path })),
    );
  });
});
