import { describe, expect, it } from 'vitest';
import { createRandomPool } from './random-pool.ts';

describe('createRandomPool', () => {
  it('serves distinct slices of the requested size, refilling when the pool runs out', () => {
    const random = createRandomPool(64);
    const slices = Array.from({ length: 20 }, () => Buffer.from(random(16)).toString('hex'));
    expect(slices.every((slice) => slice.length === 32)).toBe(true);
    expect(new Set(slices).size).toBe(20);
    expect(random(100).byteLength).toBe(100);
  });
});
