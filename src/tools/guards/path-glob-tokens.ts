import type { WildcardToken } from '../../core/wildcard.ts';
import { classEnd, parseClass } from './path-glob-class.ts';

/**
 * Splits one brace-free segment of a glob into wildcard tokens: `*` (a run of them is one), `?`, classes such as
 * `[a-z]`, and literal characters. A `[` without its `]` is literal, as are `(`, `)`, `|`, `+`, `@` and `!`:
 * there are no extglobs.
 */
export function tokenizeSegment(pattern: string, text: string): WildcardToken[] {
  const tokens: WildcardToken[] = [];
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (char === '?') {
      tokens.push({ kind: 'any' });
    } else if (char === '[' && classEnd(text, index) !== -1) {
      const end = classEnd(text, index);
      tokens.push(parseClass(pattern, text, index, end));
      index = end;
    } else {
      const code = text.codePointAt(index)!;
      tokens.push({ kind: 'char', code });
      if (code > 0xffff) index++;
    }
  }
  return tokens;
}

/**
 * True when a segment may match a name that starts with `.`: its first token is a literal `.` or a class that lists
 * `.`. So `*`, `?` and `[!a]` never match dotfiles, while `.*` and `[.]env` do (the rule of `path.matchesGlob`).
 */
export function namesTheDot(tokens: readonly WildcardToken[]): boolean {
  const first = tokens[0];
  if (first?.kind === 'char') return first.code === 0x2e;
  if (first?.kind !== 'class' || first.negated) return false;
  return first.ranges.some(([low, high]) => low <= 0x2e && 0x2e <= high);
}
