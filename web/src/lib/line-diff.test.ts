import { describe, expect, it } from 'vitest';
import { diffLines, foldUnchanged } from './line-diff.ts';

describe('diffLines', () => {
  it('keeps common lines and marks the rest with their line numbers', () => {
    const lines = diffLines('a\nb\nc', 'a\nx\nc\nd');
    expect(lines).toEqual([
      { kind: 'same', text: 'a', before: 1, after: 1 },
      { kind: 'removed', text: 'b', before: 2 },
      { kind: 'added', text: 'x', after: 2 },
      { kind: 'same', text: 'c', before: 3, after: 3 },
      { kind: 'added', text: 'd', after: 4 },
    ]);
  });

  it('reports identical texts as unchanged', () => {
    expect(diffLines('a\nb', 'a\nb').every((line) => line.kind === 'same')).toBe(true);
  });

  it('handles an empty side', () => {
    expect(diffLines('', 'a').map((line) => line.kind)).toEqual(['removed', 'added']);
  });
});

describe('foldUnchanged', () => {
  it('folds long unchanged runs away from changes', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const after = before.replace('line 10', 'line ten');
    const folded = foldUnchanged(diffLines(before, after), 2);
    expect(folded[0]).toEqual({ kind: 'gap', lines: 8 });
    expect(folded.filter((line) => line.kind !== 'gap')).toHaveLength(6);
    expect(folded[folded.length - 1]).toEqual({ kind: 'gap', lines: 7 });
  });
});
