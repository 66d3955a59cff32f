import { compileWildcard, matchWildcard, type WildcardToken } from '../core/wildcard.ts';

/** One name pattern or several: exact names, or globs where `*` is any run of characters and `?` one character. */
export type NamePatterns = string | readonly string[];

/**
 * Compiles name patterns into a predicate. Matching is exact and case-sensitive. Every other character is literal
 * (no classes or braces). The globs go through the same linear-time matcher as `file_glob`, so a long name checked
 * against `*a*a*a*a*a*b` costs O(name × pattern), not the exponential time of a backtracking RegExp.
 */
export function nameMatcher(patterns: NamePatterns): (name: string) => boolean {
  const list = typeof patterns === 'string' ? [patterns] : patterns;
  const exact = new Set(list.filter((pattern) => !/[*?]/.test(pattern)));
  const globs = list.filter((pattern) => /[*?]/.test(pattern)).map((pattern) => compileWildcard(tokensOf(pattern)));
  return (name) => exact.has(name) || globs.some((glob) => matchWildcard(glob, name));
}

function tokensOf(pattern: string): WildcardToken[] {
  return Array.from(pattern, (char): WildcardToken => {
    if (char === '*') return { kind: 'star' };
    if (char === '?') return { kind: 'any' };
    return { kind: 'char', code: char.codePointAt(0)! };
  });
}
