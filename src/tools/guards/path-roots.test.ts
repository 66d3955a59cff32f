import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { resolveInScope } from './path-resolve.ts';
import { isInsideRoot, resolveScope } from './path-roots.ts';

let top: string;

beforeAll(async () => {
  top = await mkdtemp(path.join(os.tmpdir(), 'agency-roots-'));
  await mkdir(path.join(top, 'task'));
  await mkdir(path.join(top, 'progress'));
  await writeFile(path.join(top, 'file.txt'), 'not a dir\n');
  await writeFile(path.join(top, 'task', 'brief.md'), 'brief\n');
  await symlink('task', path.join(top, 'task-link'));
});

afterAll(async () => {
  await rm(top, { recursive: true, force: true });
});

describe('isInsideRoot', () => {
  it.each([
    ['/srv/root', '/srv/root', true],
    ['/srv/root', '/srv/root/a/b', true],
    ['/srv/root', '/srv/root/..foo', true],
    ['/srv/root', '/srv/root-evil', false],
    ['/srv/root', '/srv/root-evil/x', false],
    ['/srv/root', '/srv/rootx', false],
    ['/srv/root', '/srv', false],
    ['/srv/root', '/srv/other/root', false],
    ['/srv/root/', '/srv/root/a', true],
    ['/', '/anything/at/all', true],
  ])('%s contains %s: %s', (root, target, inside) => {
    expect(isInsideRoot(root, target)).toBe(inside);
  });
});

describe('resolveScope', () => {
  it('labels string roots by their last segment and resolves real paths', async () => {
    const scope = await resolveScope([path.join(top, 'task-link'), { label: 'out', path: path.join(top, 'progress') }]);
    expect(scope.roots.map((root) => [root.label, root.real])).toEqual([
      ['task-link', path.join(top, 'task')],
      ['out', path.join(top, 'progress')],
    ]);
    const resolved = await resolveInScope(
      [path.join(top, 'task'), { label: 'out', path: path.join(top, 'progress') }],
      'out',
      'read',
    );
    expect(resolved).toMatchObject({ path: path.join(top, 'progress'), label: 'out', relative: '', kind: 'directory' });
  });

  it.each([
    ['an empty list', []],
    ['a relative root', ['task']],
    ['a missing root', ['/definitely/not/here']],
    ['a file as root', ['{top}/file.txt']],
    ['a NUL in a root', ['/tmp/\0x']],
    ['duplicate labels', ['{top}/task', { label: 'task', path: '{top}/progress' }]],
    ['a label with a slash', [{ label: 'a/b', path: '{top}/task' }]],
    ['a .. label', [{ label: '..', path: '{top}/task' }]],
  ])('refuses %s with invalid_argument', async (_, roots) => {
    const filled = (roots as (string | { label: string; path: string })[]).map((root) =>
      typeof root === 'string'
        ? root.replace('{top}', top)
        : { label: root.label, path: root.path.replace('{top}', top) },
    );
    const error = await resolveScope(filled).catch((thrown: unknown) => thrown);
    expect(AgencyError.hasCode(error, 'invalid_argument')).toBe(true);
  });

  it('refuses an unknown mode', async () => {
    const error = await resolveInScope([path.join(top, 'task')], 'brief.md', 'delete' as 'read').catch(
      (thrown: unknown) => thrown,
    );
    expect(AgencyError.hasCode(error, 'invalid_argument')).toBe(true);
  });

  it('refuses a non-string path with path_invalid', async () => {
    const error = await resolveInScope([path.join(top, 'task')], 42 as unknown as string, 'read').catch(
      (thrown: unknown) => thrown,
    );
    expect(AgencyError.hasCode(error, 'path_invalid')).toBe(true);
  });
});
