import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { globInScope } from './path-glob.ts';

let top: string;
let roots: string[];

beforeAll(async () => {
  top = await mkdtemp(path.join(os.tmpdir(), 'agency-glob-'));
  const files = [
    'task/brief.md',
    'task/links.txt',
    'task/.hidden.md',
    'task/docs/a.md',
    'task/docs/deep/b.md',
    'progress/notes.md',
    'progress/plan/current.json',
    'task-evil/leak.md',
    'outside/leak.md',
    'outside/dir/leak.md',
  ];
  for (const file of files) {
    await mkdir(path.dirname(path.join(top, file)), { recursive: true });
    await writeFile(path.join(top, file), `${file}\n`);
  }
  await symlink('../outside/leak.md', path.join(top, 'task', 'link-out.md'));
  await symlink('../task-evil/leak.md', path.join(top, 'task', 'link-evil.md'));
  await symlink('../outside', path.join(top, 'task', 'dir-out'));
  await symlink('docs', path.join(top, 'task', 'dir-in'));
  await symlink('brief.md', path.join(top, 'task', 'link-in.md'));
  await symlink('nowhere.md', path.join(top, 'task', 'dangling.md'));
  await symlink('loop', path.join(top, 'task', 'loop'));
  roots = [path.join(top, 'task'), path.join(top, 'progress')];
});

afterAll(async () => {
  await rm(top, { recursive: true, force: true });
});

describe('globInScope', () => {
  it('matches files in the first root, listing only in-scope symlinks', async () => {
    expect((await globInScope(roots, '*.md')).paths).toEqual(['brief.md', 'link-in.md']);
  });

  it('walks ** without following symlinked directories out of (or within) scope', async () => {
    const { paths } = await globInScope(roots, '**/*.md');
    expect(paths).toEqual(['brief.md', 'docs/a.md', 'docs/deep/b.md', 'link-in.md']);
    expect(paths.join('\n')).not.toContain('leak');
  });

  it('lists directories with a trailing slash, and an in-scope dir symlink once', async () => {
    expect((await globInScope(roots, '*')).paths).toEqual(['brief.md', 'dir-in/', 'docs/', 'link-in.md', 'links.txt']);
  });

  it('descends exactly as deep as a pattern without ** needs', async () => {
    expect((await globInScope(roots, '*/a.md')).paths).toEqual(['docs/a.md']);
    expect((await globInScope(roots, '*/*/*.md')).paths).toEqual(['docs/deep/b.md']);
    expect((await globInScope(roots, '*/*.md')).paths).toEqual(['docs/a.md']);
  });

  it('addresses other roots by label', async () => {
    expect((await globInScope(roots, 'progress/**/*.json')).paths).toEqual(['progress/plan/current.json']);
    expect((await globInScope(roots, 'task/docs/*.md')).paths).toEqual(['task/docs/a.md']);
  });

  it('matches dotfiles only when the pattern names the dot', async () => {
    expect((await globInScope(roots, '.*.md')).paths).toEqual(['.hidden.md']);
  });

  it('resolves a pattern without wildcards like a path', async () => {
    expect((await globInScope(roots, 'docs')).paths).toEqual(['docs/']);
    expect((await globInScope(roots, 'missing.md')).paths).toEqual([]);
    expect((await globInScope(roots, 'link-out.md')).paths).toEqual([]);
  });

  it('returns nothing for a wildcard below a symlink that leaves the scope', async () => {
    expect((await globInScope(roots, 'dir-out/*.md')).paths).toEqual([]);
  });

  it('stops at maxResults and maxEntries', async () => {
    expect(await globInScope(roots, '**', { maxResults: 2 })).toEqual({
      paths: ['brief.md', 'dir-in/'],
      truncated: true,
      entries: 6,
    });
    expect(await globInScope(roots, '**', { maxEntries: 3 })).toMatchObject({ truncated: true, entries: 3 });
    expect((await globInScope(roots, '*.md', { maxResults: 2 })).truncated).toBe(false);
  });

  it.each([
    ['../*', 'path_invalid'],
    ['../task-evil/*', 'path_invalid'],
    ['**/../../outside/*', 'path_invalid'],
    ['docs/../../*', 'path_invalid'],
    ['/etc/*', 'path_invalid'],
    ['/**', 'path_invalid'],
    [`${'{top}'}/outside/*`, 'path_invalid'],
    ['..\\*', 'path_invalid'],
    ['%2e%2e/*', 'path_invalid'],
    ['\uff0e\uff0e/*', 'path_invalid'],
    ['*\u0000', 'path_invalid'],
    ['~/*', 'path_invalid'],
    ['', 'path_invalid'],
  ])('refuses the pattern %j', async (pattern, code) => {
    const error = await globInScope(roots, pattern.replace('{top}', top)).catch((thrown: unknown) => thrown);
    expect(AgencyError.hasCode(error, code as 'path_invalid')).toBe(true);
    expect((error as Error).message).toMatch(/; \S/);
  });

  it('refuses bad limits', async () => {
    const error = await globInScope(roots, '*', { maxResults: 0 }).catch((thrown: unknown) => thrown);
    expect(AgencyError.hasCode(error, 'invalid_argument')).toBe(true);
  });
});
