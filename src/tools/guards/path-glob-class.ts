import type { WildcardChar } from '../../core/wildcard.ts';
import { refusal } from './path-refusal.ts';

/**
 * The index of the `]` closing the class opened at `open`, or -1 when the `[` is a literal character. A `]` right
 * after `[`, `[!` or `[^` is a member, not the end; a class never spans a `/`.
 */
export function classEnd(text: string, open: number): number {
  let index = open + 1;
  if (text[index] === '!' || text[index] === '^') index++;
  if (text[index] === ']') index++;
  for (; index < text.length; index++) {
    if (text[index] === ']') return index;
    if (text[index] === '/') return -1;
  }
  return -1;
}

/**
 * Parses the class `text[open..end]` (brackets included): members, ranges such as `a-z`, and `!` or `^` first to
 * negate. A `-` first or last is a member.
 *
 * @throws AgencyError `path_invalid` for a POSIX class (`[[:alpha:]]`) or a reversed range (`[z-a]`).
 */
export function parseClass(pattern: string, text: string, open: number, end: number): WildcardChar {
  let body = text.slice(open + 1, end);
  const negated = body.startsWith('!') || body.startsWith('^');
  if (negated) body = body.slice(1);
  if (body.includes('[:')) {
    throw refusal('path_invalid', pattern, 'uses a POSIX character class', 'write the characters, e.g. [a-zA-Z0-9]');
  }
  const codes = Array.from(body, (char) => char.codePointAt(0)!);
  const ranges: [number, number][] = [];
  for (let index = 0; index < codes.length; index++) {
    const low = codes[index]!;
    const high = codes[index + 2];
    if (codes[index + 1] === 0x2d && high !== undefined) {
      if (high < low) {
        const range = `${String.fromCodePoint(low)}-${String.fromCodePoint(high)}`;
        throw refusal('path_invalid', pattern, `has the reversed range ${range} in a class`, 'put the lower end first');
      }
      ranges.push([low, high]);
      index += 2;
    } else {
      ranges.push([low, low]);
    }
  }
  return { kind: 'class', negated, ranges };
}
