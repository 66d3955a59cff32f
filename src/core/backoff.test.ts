import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.ts';

describe('backoffDelay', () => {
  it('doubles from the first wait up to the cap, within the upper half of each ceiling', () => {
    const policy = { initialMs: 1000, maxMs: 8000 };
    const lowest = [1, 2, 3, 4, 5].map((n) => backoffDelay(n, { ...policy, random: () => 0 }));
    const highest = [1, 2, 3, 4, 5].map((n) => backoffDelay(n, { ...policy, random: () => 1 }));
    expect(lowest).toEqual([500, 1000, 2000, 4000, 4000]);
    expect(highest).toEqual([1000, 2000, 4000, 8000, 8000]);
  });

  it('treats an attempt below 1 as the first', () => {
    expect(backoffDelay(0, { initialMs: 100, maxMs: 1000, random: () => 1 })).toBe(100);
  });
});
