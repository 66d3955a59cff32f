import { describe, expect, it } from 'vitest';
import { createIdGenerator, idTime, isId, newId } from './ids.ts';

describe('ids', () => {
  it('are prefixed and well-formed', () => {
    for (const prefix of ['task', 'req', 'evt', 'call'] as const) {
      const id = newId(prefix);
      expect(id.startsWith(`${prefix}_`)).toBe(true);
      expect(isId(id, prefix)).toBe(true);
    }
    expect(isId('task_short', 'task')).toBe(false);
    expect(isId(newId('req'), 'task')).toBe(false);
  });

  it('sort by creation order, also within one millisecond and when the clock steps back', () => {
    const times = [1000, 1000, 1000, 999, 2000];
    const generate = createIdGenerator({ now: () => times.shift() ?? 3000 });
    const ids = Array.from({ length: 6 }, () => generate('evt'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('encode their creation time', () => {
    const generate = createIdGenerator({ now: () => 1_700_000_000_123 });
    expect(idTime(generate('task'))).toBe(1_700_000_000_123);
  });

  it('are deterministic with injected time and randomness', () => {
    const deps = { now: () => 5, randomBytes: (n: number) => new Uint8Array(n).fill(7) };
    expect(createIdGenerator(deps)('call')).toBe(createIdGenerator(deps)('call'));
  });
});
