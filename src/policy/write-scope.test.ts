import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PolicyRequest } from './policy-types.ts';
import { normalizeRelative, writeScope } from './write-scope.ts';

const write = (input: unknown, name = 'fs_write'): PolicyRequest => ({
  kind: 'tool-call',
  tool: { name, effects: 'write' },
  input,
});

describe('writeScope', () => {
  const rule = writeScope({ paths: ['progress', 'out/reports/'] });

  it.each([
    ['progress', true],
    ['progress/notes.md', true],
    ['./progress/a/../b.md', true],
    ['out/reports/r.json', true],
    ['progress-old/notes.md', false],
    ['progressive.md', false],
    ['out/report.json', false],
    ['progress/../task/brief.md', false],
    ['../progress/x', false],
    ['/work/progress/x', false],
    ['C:\\progress\\x', false],
    ['progress\\..\\..\\x', false],
    ['progress/x\0.md', false],
    ['', false],
  ])('%j → allowed %s', (path, allowed) => {
    expect(rule.check(write({ path })) === undefined).toBe(allowed);
  });

  it('names the scope, not the path, when it denies', () => {
    expect(rule.check(write({ path: 'secret-dir/x' }))).toEqual({
      effect: 'deny',
      reason: 'tool "fs_write" may write only under progress, out/reports',
    });
  });

  it('checks write tools only, unless tools are named', () => {
    expect(
      rule.check({ kind: 'tool-call', tool: { name: 'fs_read', effects: 'read' }, input: { path: '/etc' } }),
    ).toBeUndefined();
    const named = writeScope({ paths: ['progress'], tools: ['sandbox_exec'], pathFields: ['cwd'] });
    expect(
      named.check({ kind: 'tool-call', tool: { name: 'sandbox_exec', effects: 'exec' }, input: { cwd: 'task' } }),
    ).toMatchObject({
      effect: 'deny',
    });
  });

  it('denies a write tool without a path argument unless told otherwise', () => {
    expect(rule.check(write({ content: 'x' }))).toMatchObject({ effect: 'deny' });
    expect(writeScope({ paths: ['progress'], onMissingPath: 'allow' }).check(write({ content: 'x' }))).toBeUndefined();
  });

  it('never checks the tools it is told to except', () => {
    const stores = writeScope({ paths: ['progress'], except: ['kv', 'sql*'] });
    expect(stores.check(write({ op: 'set', key: 'a', value: 1 }, 'kv'))).toBeUndefined();
    expect(stores.check(write({ query: 'insert into t values (?)' }, 'sql_main'))).toBeUndefined();
    expect(stores.check(write({ path: 'task/brief.md' }))).toMatchObject({ effect: 'deny' });
  });

  it('a scope of "." allows every relative path inside the root', () => {
    const root = writeScope({ paths: ['.'] });
    expect(root.check(write({ path: 'a/b' }))).toBeUndefined();
    expect(root.check(write({ path: '../a' }))).toMatchObject({ effect: 'deny' });
  });

  it('rejects scopes that are absolute or escape', () => {
    expect(() => writeScope({ paths: ['/tmp'] })).toThrow(/paths\[0\] "\/tmp" must be a relative path/);
    expect(() => writeScope({ paths: ['../x'] })).toThrow(/must be a relative path/);
    expect(normalizeRelative('a//b/./c/')).toBe('a/b/c');
  });

  it('normalizes relative paths as posix.normalize does, refusing any that climb out', () => {
    for (const path of ['a/../b', 'a/b/../../c', './a', '.', './', 'a/..', 'a\\b\\..\\c', 'a/./b//']) {
      expect(normalizeRelative(path)).toBe(posix.normalize(path.replaceAll('\\', '/')).replace(/\/+$/, '') || '.');
    }
    for (const path of ['..', '../a', 'a/../..', 'a/../../b', '/abs', 'C:/x', '', 'a\0b']) {
      expect(normalizeRelative(path)).toBeUndefined();
    }
  });
});
