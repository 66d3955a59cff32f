import { describe, expect, it } from 'vitest';
import { diffLines } from './line-diff.ts';

const shown = (a: string, b: string) => diffLines(a, b).map((line) => `${line.op}${line.text}`);

describe('diffLines', () => {
  it('keeps the common lines and marks the removed and added ones, in order', () => {
    expect(shown('a\nb\nc\nd\n', 'a\nc\nx\nd\n')).toEqual([' a', '-b', ' c', '+x', ' d']);
  });

  it('finds the longest common run in a changed middle', () => {
    expect(shown('x\na\nb\nc\ny', 'x\nb\nc\na\ny')).toEqual([' x', '-a', ' b', ' c', '+a', ' y']);
  });

  it('handles empty texts, identical texts and a missing final newline', () => {
    expect(shown('', '')).toEqual([]);
    expect(shown('', 'a\n')).toEqual(['+a']);
    expect(shown('a\n', '')).toEqual(['-a']);
    expect(shown('a\nb', 'a\nb')).toEqual([' a', ' b']);
    expect(shown('a\nb', 'a\nb\n')).toEqual([' a', ' b']);
    expect(shown('a\n\nb', 'a\nb')).toEqual([' a', '-', ' b']);
  });

  it('shows a middle too large for the table as removed then added, still a correct diff', () => {
    const a = Array.from({ length: 3000 }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: 3000 }, (_, i) => `b${i}`).join('\n');
    const lines = diffLines(`head\n${a}\ntail`, `head\n${b}\ntail`);
    expect(lines).toHaveLength(6002);
    expect(lines[0]).toEqual({ op: ' ', text: 'head' });
    expect(lines[1]).toEqual({ op: '-', text: 'a0' });
    expect(lines[3001]).toEqual({ op: '+', text: 'b0' });
    expect(lines.at(-1)).toEqual({ op: ' ', text: 'tail' });
  });
});
