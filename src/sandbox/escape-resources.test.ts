import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBwrapSandbox } from './bwrap-sandbox.ts';
import { checkSandbox } from './check-sandbox.ts';
import { findCgroupParents } from './run-cgroup.ts';
import { type RunSandboxedOptions, runSandboxed } from './run-sandboxed.ts';

// The escape battery, resources part: a sandboxed command must not exhaust the host's processes, memory, CPU or
// disk. Bombs here are bounded (a tree of 2^9 processes), so a regression cannot take the machine down; the
// unbounded fork bomb lives in escape-fork-bomb.test.ts, where it runs only under a process cap.
const sandbox = createBwrapSandbox();
const status = await checkSandbox(sandbox);
const skipReason = status.ok ? '' : ` (skipped: ${status.error.message})`;
if (!status.ok) console.warn(`sandbox resources battery skipped: ${status.error.message}`);
const memoryCgroup = findCgroupParents().some((parent) => parent.controllers.includes('memory'));
if (!memoryCgroup) console.warn('total memory test skipped: no memory cgroup can be made here');

let workdir: string;
beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), 'agency-escape-res-')));
});
afterEach(() => rmSync(workdir, { recursive: true, force: true }));

function bash(script: string, options: Partial<RunSandboxedOptions> = {}) {
  return runSandboxed(sandbox, ['bash', '-c', script], { workdir, timeoutMs: 10_000, ...options });
}

/** Live host processes whose command line contains `needle`. */
function countMatching(needle: string): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat[stat.lastIndexOf(')') + 2] === 'Z') continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) count++;
    } catch {
      // exited while we looked
    }
  }
  return count;
}

/**
 * The private resident memory (RssAnon, which a memory cgroup charges), in bytes, of the live host processes whose
 * command line contains `needle`. Shared library pages are left out: every process counts them in its RSS.
 */
function residentMatching(needle: string): number {
  let bytes = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) continue;
      const kib = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      bytes += Number(kib ?? 0) * 1024;
    } catch {
      // exited while we looked
    }
  }
  return bytes;
}

/**
 * Runs `run` while sampling the processes matching `needle` (their count and their resident memory together) and
 * the largest delay of a 20 ms timer.
 */
async function watch<T>(needle: string, run: () => Promise<T>) {
  let peak = 0;
  let peakResident = 0;
  let worstTimerGapMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worstTimerGapMs = Math.max(worstTimerGapMs, now - last);
    last = now;
    peak = Math.max(peak, countMatching(needle));
    peakResident = Math.max(peakResident, residentMatching(needle));
  }, 20);
  try {
    const result = await run();
    return { result, peak: () => peak, peakResident: () => peakResident, worstTimerGapMs: () => worstTimerGapMs };
  } finally {
    clearInterval(timer);
  }
}

const MiB = 1024 * 1024;
// How long a command that went past diskBytes waits to be stopped before it writes on: the watchdog's bound.
const PAST_LIMIT_WAIT_S = 10;

describe.skipIf(!status.ok)(`resources battery${skipReason}`, () => {
  it('caps the processes of a fork tree, and the host stays responsive', async () => {
    const needle = `bomb-${process.pid}-${Date.now()}`;
    // Each call forks two more until depth 0: 2^9 shells and as many sleeps without a cap.
    const script = `: ${needle}; b() { if [ $1 -gt 0 ]; then b $(($1-1)) & b $(($1-1)) & fi; sleep 3; }; b 8; wait`;
    const watched = await watch(needle, () => bash(script, { limits: { processes: 32 }, timeoutMs: 5000 }));
    expect(watched.peak()).toBeGreaterThan(2);
    expect(watched.peak()).toBeLessThanOrEqual(32 + 1); // + bwrap's monitor, outside, with the same command line
    expect(watched.result.durationMs).toBeLessThan(5000 + 2000 + 1000);
    expect(watched.worstTimerGapMs()).toBeLessThan(1000);
    await expect.poll(() => countMatching(needle), { timeout: 2000 }).toBe(0);
  });

  it('ends a memory bomb at its memory limit', async () => {
    const watched = await watch('never-matches', () =>
      runSandboxed(sandbox, ['perl', '-e', 'my $x = "a" x (1 << 30); print "ALLOCATED\\n"'], {
        workdir,
        limits: { memoryBytes: 256 * MiB },
        timeoutMs: 10_000,
      }),
    );
    expect(watched.result.stdout).toBe('');
    expect(watched.result.stderr).toContain('Out of memory');
    expect(watched.result.exitCode).not.toBe(0);
    expect(watched.worstTimerGapMs()).toBeLessThan(1000);
  });

  it.skipIf(!memoryCgroup)(
    'holds several memory hogs together to totalMemoryBytes, which memoryBytes alone did not',
    async () => {
      // Six processes of 48 MiB each, under a per-process limit of 512 MiB: 288 MiB in all without a memory cgroup.
      const hogs = (needle: string) =>
        `for i in 1 2 3 4 5 6; do (exec -a ${needle} perl -e 'vec($x, (48<<20)-1, 8) = 1; print "HELD\\n"; ` +
        `sleep 2') & done; wait`;
      const limits = { memoryBytes: 512 * MiB, totalMemoryBytes: 128 * MiB };
      const capped = `hog-${process.pid}-${Date.now()}`;
      const watched = await watch(capped, () => bash(hogs(capped), { limits }));
      expect(watched.peakResident()).toBeGreaterThan(32 * MiB);
      expect(watched.peakResident()).toBeLessThanOrEqual(128 * MiB);
      expect(watched.result.stderr).toContain('Killed'); // bash reports the jobs the OOM killer ended
      expect(watched.result.limitsReached).toEqual(['totalMemoryBytes']);
      expect(watched.result.warnings).toEqual([]);
      expect(watched.worstTimerGapMs()).toBeLessThan(1000);

      // The same without cgroups: every hog holds its 48 MiB, and the measure sees it.
      const free = `hog-free-${process.pid}-${Date.now()}`;
      const control = await watch(free, () =>
        runSandboxed(sandbox, ['bash', '-c', hogs(free)], { workdir, limits }, { cgroupParents: false }),
      );
      expect(control.result.stdout).toBe('HELD\n'.repeat(6));
      expect(control.peakResident()).toBeGreaterThan(200 * MiB);
      expect(control.result.limitsReached).toEqual([]);
      expect(control.result.warnings).toContainEqual(
        expect.stringMatching(/^limits\.totalMemoryBytes .* is not enforced/),
      );
    },
  );

  it('kills a process at its CPU time limit, long before the timeout', async () => {
    const result = await bash('while :; do :; done', { limits: { cpuSeconds: 1 }, timeoutMs: 8000 });
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBeGreaterThan(128); // killed by SIGXCPU or SIGKILL, as bwrap reports it
    expect(result.durationMs).toBeLessThan(5000);
  });

  it('caps the size of one file, sparse files included', async () => {
    const result = await bash('head -c 3M /dev/zero > big; truncate -s 10G sparse; echo done', {
      limits: { fileSizeBytes: 2 * MiB },
    });
    expect(result.stdout).toBe('done\n');
    expect(statSync(join(workdir, 'big')).size).toBeLessThanOrEqual(2 * MiB);
    expect(statSync(join(workdir, 'sparse')).size).toBeLessThanOrEqual(2 * MiB);
  });

  it('stops a run that adds more than diskBytes to its writable paths, many files or few', async () => {
    const extra = join(workdir, '..', `extra-${process.pid}`);
    mkdirSync(extra);
    try {
      // Many 1 MiB files, each far below fileSizeBytes, spread over the workdir and a readWritePaths entry. Past the
      // limit (24 MiB written) the command waits to be stopped: how many more megabytes a busy host lets it write
      // before the watchdog's next look is not what is tested, that it is stopped is.
      const many = await bash(
        `for i in $(seq 1 200); do head -c 1M /dev/zero > f$i; head -c 1M /dev/zero > ${extra}/g$i; ` +
          `if [ $i = 12 ]; then sleep ${PAST_LIMIT_WAIT_S}; fi; done; echo DONE`,
        { limits: { diskBytes: 16 * MiB }, readWritePaths: [extra], timeoutMs: 2 * PAST_LIMIT_WAIT_S * 1000 },
      );
      expect(many.limitsReached).toEqual(['diskBytes']);
      expect(many.stdout).not.toContain('DONE');
      expect(many.timedOut).toBe(false);
      const written = (dir: string) => readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
      expect(written(workdir) + written(extra)).toBeGreaterThan(16 * MiB);
      expect(written(workdir) + written(extra)).toBeLessThan(80 * MiB); // 400 MiB unstopped
      expect(written(extra)).toBeGreaterThan(0);
    } finally {
      rmSync(extra, { recursive: true, force: true });
    }
    // Three dense files, as a command filling the disk with big files would write them.
    rmSync(workdir, { recursive: true, force: true });
    mkdirSync(workdir);
    const few = await bash(
      `head -c 24M /dev/zero > big1; head -c 24M /dev/zero > big2; sleep ${PAST_LIMIT_WAIT_S}; ` +
        'head -c 24M /dev/zero > big3; echo DONE',
      { limits: { diskBytes: 32 * MiB }, timeoutMs: 2 * PAST_LIMIT_WAIT_S * 1000 },
    );
    expect(few.limitsReached).toEqual(['diskBytes']);
    expect(few.stdout).not.toContain('DONE');
    const sizes = readdirSync(workdir).map((name) => statSync(join(workdir, name)).size);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeLessThan(72 * MiB);
    // Under the limit, nothing is reported.
    const small = await bash('head -c 1M /dev/zero > small; echo DONE', { limits: { diskBytes: 32 * MiB } });
    expect(small).toMatchObject({ stdout: 'DONE\n', limitsReached: [] });
  });

  it('bounds /tmp and /dev/shm, and cannot write the root or /dev', async () => {
    const result = await bash(
      'head -c 8M /dev/zero > /tmp/fill; head -c 8M /dev/zero > /dev/shm/fill; ' +
        'stat -c %s /tmp/fill /dev/shm/fill; touch /rootfile /dev/devfile 2>&1 | grep -c "Read-only"',
      { limits: { tmpBytes: 4 * MiB } },
    );
    expect(result.stdout.trim().split('\n')).toEqual([String(4 * MiB), String(4 * MiB), '2']);
  });

  it('applies every rlimit, soft and hard, with core dumps off', async () => {
    const result = await bash('cat /proc/self/limits', {
      limits: { processes: 100, memoryBytes: 300 * MiB, cpuSeconds: 50, fileSizeBytes: 7 * MiB, openFiles: 64 },
    });
    const limits = Object.fromEntries(
      result.stdout
        .split('\n')
        .map((line) => /^Max (.+?)\s{2,}(\S+)\s+(\S+)/.exec(line))
        .filter((match) => match !== null)
        .map((match) => [match[1], `${match[2]} ${match[3]}`]),
    );
    expect(limits).toMatchObject({
      processes: '100 100',
      'data size': `${300 * MiB} ${300 * MiB}`,
      'cpu time': '50 50',
      'file size': `${7 * MiB} ${7 * MiB}`,
      'open files': '64 64',
      'core file size': '0 0',
    });
  });
});
