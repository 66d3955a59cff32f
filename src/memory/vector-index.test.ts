import { describe, expect, it } from 'vitest';
import { createJsDotKernel } from './vector-dots.ts';
import { createVectorIndex } from './vector-index.ts';

const unit = (...values: number[]) => {
  const norm = Math.hypot(...values);
  return Float32Array.from(values, (value) => value / norm);
};

describe.each([
  ['WebAssembly', undefined],
  ['JavaScript', createJsDotKernel()],
])('the vector index (%s kernel)', (_name, kernel) => {
  it('returns the most similar rows of the wanted scopes, best first, above the floor', () => {
    const index = createVectorIndex(kernel);
    index.upsert(1, 'agent:a', unit(1, 0, 0));
    index.upsert(2, 'agent:a', unit(1, 1, 0));
    index.upsert(3, 'agent:a', unit(0, 1, 0));
    index.upsert(4, 'user:u', unit(1, 0, 0));
    const hits = index.search(unit(1, 0.1, 0), ['agent:a'], 2, -1);
    expect(hits.map((hit) => hit.rowId)).toEqual([1, 2]);
    expect(hits[0]?.similarity).toBeGreaterThan(hits[1]?.similarity as number);
    expect(
      index
        .search(unit(1, 0, 0), ['agent:a', 'user:u'], 10, 0.9)
        .map((hit) => hit.rowId)
        .sort(),
    ).toEqual([1, 4]);
    expect(index.search(unit(1, 0, 0), ['org:none'], 10, -1)).toEqual([]);
    expect(index.search(unit(1, 0), ['agent:a'], 10, -1)).toEqual([]);
  });

  it('replaces and removes rows, reuses their slots, and grows past its first capacity', () => {
    const index = createVectorIndex(kernel);
    for (let row = 0; row < 3000; row++) index.upsert(row, 'agent:a', unit(1, row, 0));
    index.upsert(0, 'agent:a', unit(0, 0, 1));
    index.remove(1);
    index.upsert(5000, 'agent:a', unit(0, 0, 1));
    expect(index.size).toBe(3000);
    expect(
      index
        .search(unit(0, 0, 1), ['agent:a'], 2, 0.99)
        .map((hit) => hit.rowId)
        .sort(),
    ).toEqual([0, 5000]);
    expect(() => index.upsert(7, 'agent:a', unit(1, 0))).toThrow(RangeError);
  });
});
