import { spawn } from 'node:child_process';
import {
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBwrapSandbox } from './bwrap-sandbox.ts';
import { checkSandbox } from './check-sandbox.ts';

// The battery again, with agency running as an unprivileged user: a child node process as uid/gid 65534 uses
// runSandboxed the way a non-root deployment would. It needs root to start that child, and bwrap to work for the
// user (unprivileged user namespaces on).
const NOBODY = 65534;
const status = await checkSandbox(createBwrapSandbox());
const reason = !status.ok
  ? status.error.message
  : process.getuid?.() !== 0
    ? 'needs root to start a child as nobody'
    : '';
if (reason) console.warn(`unprivileged battery skipped: ${reason}`);

let base: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'agency-escape-nobody-')));
  mkdirSync(join(base, 'work'));
  for (const path of [base, join(base, 'work')]) chownSync(path, NOBODY, NOBODY);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

// Runs in the child, as nobody: each attack through runSandboxed, results as JSON on stdout.
const CHILD = (index: string, needle: string) => `
import { checkSandbox, createBwrapSandbox, runSandboxed } from ${JSON.stringify(index)};
const sandbox = createBwrapSandbox();
const workdir = process.argv[2];
const run = (script, options = {}) =>
  runSandboxed(sandbox, ['bash', '-c', script], { workdir, timeoutMs: 10_000, ...options });
const out = {};
const hello = await run('echo hello; id -u');
out.echo = hello.stdout;
out.warnings = hello.warnings;
out.status = (await run('grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status')).stdout;
out.sysctl = (await run('echo 61 > /proc/sys/vm/swappiness; cat /proc/sys/vm/swappiness')).stdout;
const plant = await run(
  'cp /usr/bin/id id; chmod 4755 id; perl -MIO::Socket::UNIX -e \\'IO::Socket::UNIX->new(Local => "sock", Listen => 1)\\'',
);
out.quarantined = plant.quarantined;
const bomb = await run(
  ': ${needle}; b() { if [ $1 -gt 0 ]; then b $(($1-1)) & b $(($1-1)) & fi; sleep 3; }; b 8; wait',
  { limits: { processes: 16 }, timeoutMs: 5000 },
);
out.bombMs = bomb.durationMs;
const passthru = await checkSandbox(createBwrapSandbox({ bwrapPath: process.argv[3] }));
out.passthru = passthru.ok ? 'accepted' : passthru.error.details.problems;
console.log(JSON.stringify(out));
`;

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

describe.skipIf(reason !== '')(`battery as an unprivileged user${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('works, runs the command as nobody under seccomp, and the attacks fail', { timeout: 60_000 }, async () => {
    const needle = `nobody-bomb-${process.pid}-${Date.now()}`;
    const script = join(base, 'child.mjs');
    writeFileSync(script, CHILD(new URL('./index.ts', import.meta.url).href, needle));
    const workdir = join(base, 'work');
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, countMatching(needle))), 20);
    const passthru = fileURLToPath(new URL('./__fixtures__/fake-bwrap-passthru.sh', import.meta.url));
    const child = spawn(process.execPath, [script, workdir, passthru], {
      uid: NOBODY,
      gid: NOBODY,
      cwd: base,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: base, TMPDIR: base },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('close', resolve));
    clearInterval(sampler);
    expect(code, stderr).toBe(0);

    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out['echo']).toBe(`hello\n${NOBODY}\n`);
    // RLIMIT_NPROC binds nobody: only the total memory can go unenforced, where no cgroup is writable for it.
    const memoryWarning = expect.stringMatching(/^limits\.totalMemoryBytes \(\d+\) is not enforced/);
    expect([[], [memoryWarning]]).toContainEqual(out['warnings']);
    expect(out['status']).toBe('NoNewPrivs:\t1\nSeccomp:\t2\n');
    expect(out['sysctl']).toBe(readFileSync('/proc/sys/vm/swappiness', 'utf8'));
    expect(out['quarantined']).toEqual([{ path: join(workdir, 'sock'), what: 'socket', action: 'removed' }]);
    expect(readdirSync(workdir).sort()).toEqual(['id']);
    expect(statSync(join(workdir, 'id')).mode & 0o6000).toBe(0);
    expect(peak).toBeGreaterThan(2);
    expect(peak).toBeLessThanOrEqual(16 + 1); // + bwrap's monitor, outside the sandbox, with the same command line
    expect(out['bombMs']).toBeLessThan(8000);
    // Run as nobody, a wrapper that runs the probe unsandboxed shows the right uid: the rest gives it away.
    expect(out['passthru']).toEqual(
      expect.arrayContaining(['NoNewPrivs "0" where "1"', 'the host name is not agency-sandbox']),
    );
  });
});
