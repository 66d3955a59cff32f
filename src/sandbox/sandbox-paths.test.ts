import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import type { WrapOptions } from './sandbox.ts';
import { assertCommand, isWithin, resolveWrapOptions } from './sandbox-paths.ts';

let base: string;
let workdir: string;
const home = '/home/agency-test-user';

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'agency-paths-'));
  workdir = join(base, 'work');
  mkdirSync(workdir);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function rejects(options: WrapOptions, pattern: RegExp): void {
  let thrown: unknown;
  try {
    resolveWrapOptions(options, home);
  } catch (error) {
    thrown = error;
  }
  expect(AgencyError.hasCode(thrown, 'invalid_argument'), String(thrown)).toBe(true);
  expect((thrown as Error).message).toMatch(pattern);
}

describe('resolveWrapOptions', () => {
  it('accepts an absolute existing workdir and fills in a minimal PATH', () => {
    const resolved = resolveWrapOptions({ workdir, env: { TOKEN: 'x' } }, home);
    expect(resolved.workdir).toBe(workdir);
    expect(resolved.allowNetwork).toBe(false);
    expect(resolved.env).toEqual({
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      TOKEN: 'x',
    });
  });

  it('refuses relative, empty, NUL-containing and missing workdirs', () => {
    rejects({ workdir: 'work' }, /must be absolute/);
    rejects({ workdir: '' }, /non-empty absolute path/);
    rejects({ workdir: `${workdir}\0/x` }, /NUL/);
    rejects({ workdir: join(base, 'missing') }, /does not exist/);
    writeFileSync(join(base, 'file'), '');
    rejects({ workdir: join(base, 'file') }, /must be a directory/);
  });

  it('refuses / and system directories as writable, also through a symlink', () => {
    for (const path of ['/', '/usr', '/etc', '/proc', '/tmp', '/var', '/home']) {
      rejects({ workdir: path }, /must not be writable/);
    }
    rejects({ workdir: workdir, readWritePaths: ['/usr/lib'] }, /inside the system directory \/usr/);
    symlinkSync('/', join(base, 'root-link'));
    rejects({ workdir: join(base, 'root-link') }, /"\/" must not be writable/);
    symlinkSync('/etc', join(base, 'etc-link'));
    rejects({ workdir, readWritePaths: [join(base, 'etc-link')] }, /inside the system directory \/etc/);
  });

  it("refuses the host user's home as a writable whole", () => {
    const fakeHome = join(base, 'home');
    mkdirSync(fakeHome);
    expect(() => resolveWrapOptions({ workdir: fakeHome }, fakeHome)).toThrow(/must not be writable as a whole/);
    expect(resolveWrapOptions({ workdir }, fakeHome).workdir).toBe(workdir);
  });

  it('resolves read-only paths and refuses / among them', () => {
    expect(resolveWrapOptions({ workdir, readOnlyPaths: ['/usr/bin/../bin'] }, home).readOnlyPaths).toEqual([
      '/usr/bin',
    ]);
    rejects({ workdir, readOnlyPaths: ['/'] }, /must not be \//);
    rejects({ workdir, readOnlyPaths: ['relative'] }, /must be absolute/);
  });

  it('refuses bad environment names and values', () => {
    rejects({ workdir, env: { 'A=B': 'x' } }, /must be a name/);
    rejects({ workdir, env: { A: 'x\0y' } }, /without NUL/);
  });

  it('keeps file mounts outside every bound path', () => {
    const hostPath = join(base, 'secret');
    const ok = resolveWrapOptions({ workdir, fileMounts: [{ hostPath, path: '/run/secrets/token' }] }, home);
    expect(ok.fileMounts).toEqual([{ hostPath, path: '/run/secrets/token' }]);
    rejects({ workdir, fileMounts: [{ hostPath, path: join(workdir, 'token') }] }, /must lie outside/);
    rejects({ workdir, fileMounts: [{ hostPath, path: '/etc/token' }] }, /must lie outside \/etc/);
    rejects({ workdir, fileMounts: [{ hostPath, path: '/run/../etc/x' }] }, /normalized/);
    rejects({ workdir, fileMounts: [{ hostPath, path: 'token' }] }, /must be absolute/);
    const twice = [
      { hostPath, path: '/run/a' },
      { hostPath, path: '/run/a' },
    ];
    rejects({ workdir, fileMounts: twice }, /used twice/);
  });
});

describe('assertCommand', () => {
  it('needs a non-empty list of strings without NUL', () => {
    expect(() => assertCommand([])).toThrow(/non-empty array/);
    expect(() => assertCommand([''])).toThrow(/non-empty array/);
    expect(() => assertCommand(['ls', 'a\0b'])).toThrow(/command\[1\]/);
    expect(() => assertCommand('ls')).toThrow(/non-empty array/);
    expect(() => assertCommand(['ls', '-la'])).not.toThrow();
  });
});

describe('isWithin', () => {
  it('is separator-aware', () => {
    expect(isWithin('/a/b', '/a')).toBe(true);
    expect(isWithin('/a', '/a')).toBe(true);
    expect(isWithin('/ab', '/a')).toBe(false);
    expect(isWithin('/anything', '/')).toBe(true);
  });
});
