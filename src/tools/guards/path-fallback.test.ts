// The same guard on a platform without /proc/self/fd (macOS, some containers): the fallback checks must still hold.
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { hasProcFd } from './path-fd.ts';
import { readFileInScope, writeFileAtomicInScope } from './path-io.ts';
import { openInScope } from './path-open.ts';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const access: typeof actual.access = (file, mode) =>
    String(file).startsWith('/proc/')
      ? Promise.reject(Object.assign(new Error('no /proc here'), { code: 'ENOENT' }))
      : actual.access(file, mode);
  return { ...actual, access, default: { ...actual, access } };
});

let top: string;
let roots: string[];

beforeAll(async () => {
  top = await mkdtemp(path.join(os.tmpdir(), 'agency-noproc-'));
  await mkdir(path.join(top, 'progress'));
  await mkdir(path.join(top, 'outside'));
  await writeFile(path.join(top, 'outside', 'canary.txt'), 'CANARY\n');
  await writeFile(path.join(top, 'progress', 'notes.md'), 'notes\n');
  await symlink('../outside/canary.txt', path.join(top, 'progress', 'link-out'));
  await symlink('../outside', path.join(top, 'progress', 'dir-out'));
  roots = [path.join(top, 'progress')];
});

afterAll(async () => {
  await rm(top, { recursive: true, force: true });
});

describe('without /proc/self/fd', () => {
  it('runs in fallback mode', async () => {
    expect(await hasProcFd()).toBe(false);
  });

  it('reads and writes inside the scope', async () => {
    expect((await readFileInScope(roots, 'notes.md')).toString()).toBe('notes\n');
    await writeFileAtomicInScope(roots, 'new.md', 'new\n');
    expect(await readFile(path.join(top, 'progress', 'new.md'), 'utf8')).toBe('new\n');
    const handle = await openInScope(roots, 'notes.md', 'write');
    await handle.close();
  });

  it.each([
    ['link-out', 'read'],
    ['link-out', 'create'],
    ['dir-out/canary.txt', 'read'],
    ['dir-out/new.txt', 'create'],
  ] as const)('refuses %s (%s) with path_symlink_escape', async (userPath, mode) => {
    const action = mode === 'read' ? readFileInScope(roots, userPath) : writeFileAtomicInScope(roots, userPath, 'x');
    const error = await action.catch((thrown: unknown) => thrown);
    expect(AgencyError.hasCode(error, 'path_symlink_escape')).toBe(true);
    expect(await readFile(path.join(top, 'outside', 'canary.txt'), 'utf8')).toBe('CANARY\n');
  });

  it('refuses writes that resolve to a read-only part of a root', async () => {
    await symlink('.', path.join(top, 'progress', 'up'));
    const limited = [{ label: 'progress', path: path.join(top, 'progress'), writable: ['new.md'] }];
    for (const userPath of ['notes.md', 'up/notes.md']) {
      const error = await writeFileAtomicInScope(limited, userPath, 'x').catch((thrown: unknown) => thrown);
      expect(AgencyError.hasCode(error, 'path_read_only')).toBe(true);
      const opened = await openInScope(limited, userPath, 'write').catch((thrown: unknown) => thrown);
      expect(AgencyError.hasCode(opened, 'path_read_only')).toBe(true);
    }
    expect(await readFile(path.join(top, 'progress', 'notes.md'), 'utf8')).toBe('notes\n');
    await writeFileAtomicInScope(limited, 'up/new.md', 'again\n');
    expect(await readFile(path.join(top, 'progress', 'new.md'), 'utf8')).toBe('again\n');
  });
});
