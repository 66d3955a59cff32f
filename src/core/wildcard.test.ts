import { describe, expect, it } from 'vitest';
import { compileWildcard, matchWildcard, type WildcardToken } from './wildcard.ts';

// A tiny glob syntax for tests: * ? [chars] [!chars] and literals.
function tokens(text: string): WildcardToken[] {
  const out: WildcardToken[] = [];
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (char === '*') out.push({ kind: 'star' });
    else if (char === '?') out.push({ kind: 'any' });
    else if (char === '[') {
      const end = text.indexOf(']', index);
      const negated = text[index + 1] === '!';
      const members = Array.from(text.slice(index + (negated ? 2 : 1), end), (member) => member.codePointAt(0)!);
      out.push({ kind: 'class', negated, ranges: members.map((code) => [code, code] as const) });
      index = end;
    } else out.push({ kind: 'char', code: char.codePointAt(0)! });
  }
  return out;
}

const match = (pattern: string, text: string) => matchWildcard(compileWildcard(tokens(pattern)), text);

function reference(pattern: string, text: string): boolean {
  const source = pattern.replace(/\*/g, '.*').replace(/\?/g, '.').replace(/\[!/g, '[^');
  return new RegExp(`^${source}$`, 'su').test(text);
}

describe('matchWildcard', () => {
  it.each([
    ['', '', true],
    ['', 'a', false],
    ['*', '', true],
    ['a*', 'a', true],
    ['*a', 'ba', true],
    ['*a', 'ab', false],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'acb', false],
    ['*ab*ab*', 'abab', true],
    ['*ab*ab*', 'aba', false],
    ['a*a', 'a', false],
    ['??', '😀😀', true],
    ['[!b]*', 'abc', true],
    ['[!a]*', 'abc', false],
  ])('%j against %j is %s', (pattern, text, expected) => {
    expect(match(pattern, text)).toBe(expected);
  });

  it('agrees with a regular expression on every short case', () => {
    const alphabet = ['a', 'b'];
    const patterns: string[] = [''];
    for (let length = 1; length <= 5; length++) {
      for (const pattern of patterns.filter((p) => p.length === length - 1)) {
        for (const symbol of ['a', 'b', '*', '?', '[!a]']) patterns.push(pattern + symbol);
      }
    }
    const texts: string[] = [''];
    for (let length = 1; length <= 6; length++) {
      for (const text of texts.filter((t) => t.length === length - 1))
        for (const char of alphabet) texts.push(text + char);
    }
    let compared = 0;
    for (const pattern of patterns) {
      for (const text of texts) {
        compared++;
        if (match(pattern, text) !== reference(pattern, text)) expect.fail(`${pattern} against ${text}`);
      }
    }
    expect(compared).toBeGreaterThan(100_000);
  });

  it('stays linear where a backtracking RegExp explodes', () => {
    const started = performance.now();
    expect(match('*a*a*a*a*a*a*a*a*b', 'a'.repeat(100_000))).toBe(false);
    expect(match(`*${'a'.repeat(50)}b*`, 'a'.repeat(20_000))).toBe(false);
    expect(match('*a*a*a*a*a*a*a*a*', 'a'.repeat(100_000))).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
