import { describe, expect, it } from 'vitest';
import { runFails, type TargetResult, targetLines } from '../../bench/journal/report.ts';

const timingMiss: TargetResult = { met: false, timing: true, text: 'per-event fsync ≤ 1.1× the raw floor (1.17×)' };
const countMiss: TargetResult = { met: false, timing: false, text: '1 fsync per step (2)' };
const met: TargetResult = { met: true, timing: true, text: 'append ≤ 3 µs/event unsynced (2.1 µs of CPU)' };

describe('journal benchmark targets', () => {
  it('fails a full run on any miss', () => {
    expect(runFails('full', [met, timingMiss])).toBe(true);
    expect(runFails('full', [met, countMiss])).toBe(true);
    expect(runFails('full', [met])).toBe(false);
    expect(targetLines('full', [timingMiss])).toEqual([`MISSED: ${timingMiss.text}`]);
  });

  it('fails a quick run on a missed count, and only reports a missed timing target', () => {
    expect(runFails('quick', [met, timingMiss])).toBe(false);
    expect(runFails('quick', [timingMiss, countMiss])).toBe(true);
    expect(targetLines('quick', [met, timingMiss, countMiss])).toEqual([
      `met: ${met.text}`,
      `MISSED (not judged in a quick run): ${timingMiss.text}`,
      `MISSED: ${countMiss.text}`,
    ]);
  });
});
