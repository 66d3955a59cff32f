import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBwrapSandbox } from './bwrap-sandbox.ts';
import { checkSandbox } from './check-sandbox.ts';
import { findCgroupParents } from './run-cgroup.ts';
import { runSandboxed } from './run-sandboxed.ts';

// The classic, unbounded fork bomb. It runs only where a process cap is in force: RLIMIT_NPROC for an unprivileged
// agency, or a pids cgroup. As root without a writable pids cgroup (most containers) nothing caps the sandbox's
// processes, and running it would exhaust the host's PIDs; escape-no-cgroup.test.ts shows the run's warning there.
const sandbox = createBwrapSandbox();
const status = await checkSandbox(sandbox);
const capped = process.getuid?.() !== 0 || findCgroupParents().some((parent) => parent.controllers.includes('pids'));
const reason = !status.ok ? status.error.message : capped ? '' : 'root without a writable pids cgroup: no process cap';
if (reason) console.warn(`fork bomb skipped: ${reason}`);

let workdir: string;
beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), 'agency-fork-bomb-')));
});
afterEach(() => rmSync(workdir, { recursive: true, force: true }));

function countMatching(needle: string): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) count++;
    } catch {
      // exited while we looked
    }
  }
  return count;
}

describe.skipIf(reason !== '')(`fork bomb${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('ends within its timeout with at most `processes` processes, and leaves none', async () => {
    const needle = `fork-bomb-${process.pid}-${Date.now()}`;
    let peak = 0;
    let worstGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      worstGap = Math.max(worstGap, performance.now() - last);
      last = performance.now();
      peak = Math.max(peak, countMatching(needle));
    }, 20);
    try {
      const result = await runSandboxed(sandbox, ['bash', '-c', `: ${needle}; f() { f | f & }; f; sleep 10`], {
        workdir,
        timeoutMs: 3000,
        killGraceMs: 500,
        limits: { processes: 64 },
      });
      expect(result.durationMs).toBeLessThan(3000 + 500 + 1500);
    } finally {
      clearInterval(timer);
    }
    expect(peak).toBeGreaterThan(2);
    expect(peak).toBeLessThanOrEqual(64 + 1); // + bwrap's monitor, outside, with the same command line
    expect(worstGap).toBeLessThan(1000);
    await expect.poll(() => countMatching(needle), { timeout: 2000 }).toBe(0);
  });
});
