// Reads the pass/fail counts that common test runners print at the end of a run.

/** Counts found in a test runner's output. */
export type TestCounts = { passed: number; failed: number; skipped: number };

type Parser = (text: string) => TestCounts | undefined;

const num = (value: string | undefined) => (value === undefined ? 0 : Number.parseInt(value, 10));
const last = (regex: RegExp, text: string) => [...text.matchAll(regex)].at(-1);
const count = (text: string, word: RegExp) => num(word.exec(text)?.[1]);

// node --test (spec reporter "ℹ pass 3", TAP "# pass 3").
const nodeTest: Parser = (text) => {
  const pass = last(/^[#ℹ] pass (\d+)$/gmu, text);
  const fail = last(/^[#ℹ] fail (\d+)$/gmu, text);
  if (!pass || !fail) return undefined;
  const skipped = num(last(/^[#ℹ] skipped (\d+)$/gmu, text)?.[1]) + num(last(/^[#ℹ] todo (\d+)$/gmu, text)?.[1]);
  return { passed: num(pass[1]), failed: num(fail[1]), skipped };
};

// vitest: "      Tests  12 passed | 1 failed | 2 skipped (15)".
const vitest: Parser = (text) => {
  const line = last(/^\s*Tests\s+(.*\(\d+\))\s*$/gm, text)?.[1];
  if (!line) return undefined;
  return {
    passed: count(line, /(\d+) passed/),
    failed: count(line, /(\d+) failed/),
    skipped: count(line, /(\d+) skipped/) + count(line, /(\d+) todo/),
  };
};

// jest: "Tests:       1 failed, 2 skipped, 12 passed, 15 total".
const jest: Parser = (text) => {
  const line = last(/^Tests:\s+(.*\d+ total)\s*$/gm, text)?.[1];
  if (!line) return undefined;
  return {
    passed: count(line, /(\d+) passed/),
    failed: count(line, /(\d+) failed/),
    skipped: count(line, /(\d+) skipped/) + count(line, /(\d+) todo/),
  };
};

// cargo test: "test result: FAILED. 12 passed; 1 failed; 0 ignored; …" (one line per test binary).
const cargo: Parser = (text) => {
  const lines = [...text.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm)];
  if (lines.length === 0) return undefined;
  return lines.reduce(
    (sum, match) => ({
      passed: sum.passed + num(match[1]),
      failed: sum.failed + num(match[2]),
      skipped: sum.skipped + num(match[3]),
    }),
    { passed: 0, failed: 0, skipped: 0 },
  );
};

// pytest: "===== 1 failed, 12 passed, 2 skipped in 0.12s =====".
const pytest: Parser = (text) => {
  const line = last(/^=+ (.*\d+ (?:passed|failed|error|errors|skipped).*) in [\d.]+s.*=+\s*$/gm, text)?.[1];
  if (!line) return undefined;
  return {
    passed: count(line, /(\d+) passed/),
    failed: count(line, /(\d+) failed/) + count(line, /(\d+) errors?/),
    skipped: count(line, /(\d+) skipped/) + count(line, /(\d+) xfailed/),
  };
};

// mocha: "  12 passing (30ms)", "  1 failing", "  2 pending".
const mocha: Parser = (text) => {
  const passing = last(/^\s*(\d+) passing \(/gm, text);
  if (!passing) return undefined;
  return {
    passed: num(passing[1]),
    failed: num(last(/^\s*(\d+) failing\s*$/gm, text)?.[1]),
    skipped: num(last(/^\s*(\d+) pending\s*$/gm, text)?.[1]),
  };
};

// go test -v: one "--- PASS:" / "--- FAIL:" / "--- SKIP:" line per test.
const goTest: Parser = (text) => {
  const tally = (word: string) => [...text.matchAll(new RegExp(`^\\s*--- ${word}: `, 'gm'))].length;
  const counts = { passed: tally('PASS'), failed: tally('FAIL'), skipped: tally('SKIP') };
  return counts.passed + counts.failed + counts.skipped > 0 ? counts : undefined;
};

const PARSERS: readonly Parser[] = [vitest, jest, nodeTest, cargo, pytest, mocha, goTest];

/** The counts from the first runner format found in `output`, or undefined when none matches. */
export function parseTestCounts(output: string): TestCounts | undefined {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  for (const parse of PARSERS) {
    const counts = parse(plain);
    if (counts) return counts;
  }
  return undefined;
}

/** "12 passed, 1 failed", plus ", 2 skipped" when any were. */
export function formatTestCounts(counts: TestCounts): string {
  const parts = [`${counts.passed} passed`, `${counts.failed} failed`];
  if (counts.skipped > 0) parts.push(`${counts.skipped} skipped`);
  return parts.join(', ');
}

/** The last `lines` non-empty lines of `text`, without ANSI colour codes. */
export function lastLines(text: string, lines: number): string {
  const kept = text
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '');
  return kept.slice(-lines).join('\n');
}
