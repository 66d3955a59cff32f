import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { canGoDeeper, compileGlob, initialState, isMatch, nextState } from './path-glob-compile.ts';

function matches(pattern: string, relative: string): boolean {
  const glob = compileGlob(pattern, pattern.split('/'));
  let state = initialState(glob);
  for (const name of relative.split('/')) state = nextState(glob, state, name);
  return isMatch(glob, state);
}

function refusal(pattern: string): string {
  try {
    compileGlob(pattern, pattern.split('/'));
  } catch (error) {
    expect(AgencyError.hasCode(error, 'path_invalid')).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`${pattern} was accepted`);
}

// Every pattern of up to three symbols from this alphabet, against these paths, must agree with `path.matchesGlob`
// (minimatch, which the walk used before), except for patterns now refused (unbalanced braces).
const SYMBOLS = ['a', 'b', '*', '?', '.', '/', '**', '[', ']', '!', '-', '{', '}', ','];
const EXTRA = ['[.]a', '[!a]', '[^a]b', '[a-c]', '[]a]', '[a-]', 'a[b', '{a,b}', '{a,.b}', '{.a,b}/*', '{a}', 'a{b,}'];
const MORE = ['{1..3}', '{01..03}', '{a..c}', '**/a', 'a/**', 'a/**/b', '**/.a', '*/**/*', '{a,b}/{a,b}', '.*/*'];
const PATHS = ['a', 'b', '.a', 'ab', 'ba', 'a.b', '.ab', 'aab', 'a/b', 'a/.b', '.a/b', 'a/b/c', 'b/a', 'a/a/b'];
const MORE_PATHS = ['x/a/b', 'a/b/b', '[', 'a[b', '{a}', '1', '2', '01', 'b.a', 'a/a', '.a/.b', 'c', '-', ']'];

function corpus(): string[] {
  const patterns = new Set<string>([...EXTRA, ...MORE]);
  const grow = (prefix: string, left: number) => {
    if (prefix !== '') patterns.add(prefix);
    if (left > 0) for (const symbol of SYMBOLS) grow(prefix + symbol, left - 1);
  };
  grow('', 3);
  return [...patterns].filter((pattern) => {
    const segments = pattern.split('/');
    return !segments.some((segment) => segment === '' || segment === '.' || segment === '..');
  });
}

describe('compileGlob', () => {
  it('agrees with path.matchesGlob on every short pattern it accepts', () => {
    let compared = 0;
    const refusals = new Set<string>();
    const differences: string[] = [];
    for (const pattern of corpus()) {
      try {
        compileGlob(pattern, pattern.split('/'));
      } catch (error) {
        refusals.add((error as Error).message.replace(/^".*?" /, '').split(' (')[0]!);
        continue;
      }
      for (const relative of [...PATHS, ...MORE_PATHS]) {
        compared++;
        const expected = path.matchesGlob(relative, pattern);
        if (matches(pattern, relative) !== expected) differences.push(`${pattern} ${relative} ${expected}`);
      }
    }
    expect(differences).toEqual([]);
    expect(compared).toBeGreaterThan(40_000);
    expect([...refusals]).toEqual(['has an unbalanced brace']);
  });

  it.each([
    ['docs/**', 'docs', false],
    ['docs/**', 'docs/a/b', true],
    ['**', '.git', false],
    ['**/*.md', 'a/.git/x.md', false],
    ['**/.git/*', 'a/.git/x', true],
    ['*.md', '.hidden.md', false],
    ['[.]env', '.env', true],
    ['[!a]env', '.env', false],
    ['{1..3}.log', '2.log', true],
    ['{08..10}.log', '09.log', true],
    ['{c..a}', 'b', true],
    ['{a}', '{a}', true],
    ['[{]x[}]', '{x}', true],
    ['*(1).txt', 'a(1).txt', true],
    ['+(a|b)', 'a', false],
    ['?', '😀', true],
    ['a**b', 'axxb', true],
  ])('%s against %s is %s', (pattern, relative, expected) => {
    expect(matches(pattern, relative)).toBe(expected);
  });

  it('tells a walk which directories can hold a match', () => {
    const glob = compileGlob('docs/*.md', ['docs', '*.md']);
    const inDocs = nextState(glob, initialState(glob), 'docs');
    expect(canGoDeeper(glob, inDocs)).toBe(true);
    expect(canGoDeeper(glob, nextState(glob, initialState(glob), 'src'))).toBe(false);
    expect(canGoDeeper(glob, nextState(glob, inDocs, 'deep'))).toBe(false);
  });

  it.each([
    ['{a,b', /has an unbalanced brace .*; write \{a,b\} inside one segment/],
    ['{a/b,c}', /has an unbalanced brace/],
    ['a}', /has an unbalanced brace/],
    ['[[:alpha:]]', /uses a POSIX character class; write the characters, e.g. \[a-zA-Z0-9\]/],
    ['[z-a]', /has the reversed range z-a in a class; put the lower end first/],
  ])('refuses %s', (pattern, message) => {
    expect(refusal(pattern)).toMatch(message);
  });
});
