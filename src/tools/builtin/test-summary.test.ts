import { describe, expect, it } from 'vitest';
import { formatTestCounts, lastLines, parseTestCounts } from './test-summary.ts';

describe('parseTestCounts', () => {
  it.each([
    [
      'node --test (spec)',
      'ℹ tests 4\nℹ suites 0\nℹ pass 2\nℹ fail 1\nℹ cancelled 0\nℹ skipped 1\nℹ todo 0\n',
      '2 passed, 1 failed, 1 skipped',
    ],
    ['node --test (tap)', 'ok 1 - a\n# tests 3\n# pass 3\n# fail 0\n', '3 passed, 0 failed'],
    [
      'vitest',
      '\x1b[2m Test Files \x1b[22m 1 failed | 2 passed (3)\n\x1b[2m      Tests \x1b[22m 12 passed | 1 failed | 2 skipped (15)\n',
      '12 passed, 1 failed, 2 skipped',
    ],
    ['jest', 'Test Suites: 1 failed, 1 total\nTests:       1 failed, 12 passed, 13 total\n', '12 passed, 1 failed'],
    ['pytest', '==== 1 failed, 12 passed, 2 skipped in 0.12s ====\n', '12 passed, 1 failed, 2 skipped'],
    ['pytest errors', '=========== 3 passed, 1 error in 1.05s ===========\n', '3 passed, 1 failed'],
    [
      'cargo',
      'test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured\ntest result: FAILED. 2 passed; 1 failed; 0 ignored;\n',
      '5 passed, 1 failed, 1 skipped',
    ],
    ['mocha', '  12 passing (30ms)\n  2 pending\n  1 failing\n', '12 passed, 1 failed, 2 skipped'],
    ['go test -v', '=== RUN   TestA\n--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\n', '1 passed, 1 failed'],
  ])('reads %s', (_runner, output, summary) => {
    const counts = parseTestCounts(output);
    expect(counts && formatTestCounts(counts)).toBe(summary);
  });

  it('finds nothing in output no runner format matches', () => {
    expect(parseTestCounts('compiling...\nall good\n')).toBeUndefined();
  });
});

describe('lastLines', () => {
  it('keeps the last non-empty lines without colour codes', () => {
    expect(lastLines('a\n\n\x1b[31mb\x1b[0m\nc\n\n', 2)).toBe('b\nc');
  });
});
