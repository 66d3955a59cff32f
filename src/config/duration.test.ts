import { describe, expect, it } from 'vitest';
import { durationSchema, parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it.each([
    ['30m', 1_800_000],
    ['90s', 90_000],
    ['1h30m', 5_400_000],
    ['250ms', 250],
    ['1.5h', 5_400_000],
    ['45', 45_000],
    [' 2m ', 120_000],
    [10, 10_000],
  ] as const)('%j is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'soon', '3 weeks', '5d', 'm', '-1s', '1h 30m'])('%j is not a duration', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('a schema holds the duration to its bounds and says what to write', () => {
    const schema = durationSchema({ min: 1_000, max: 3_600_000 });
    expect(schema.parse('5m')).toBe(300_000);
    const tooLong = schema.safeParse('2h');
    expect(tooLong.error?.issues[0]?.message).toBe(
      'must be a duration such as 90s, 30m or 1h30m, between 1s and 1h (got "2h")',
    );
    expect(schema.safeParse(true).error?.issues[0]?.message).toMatch(/^must be a duration/);
  });
});
