import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { runSandboxed } from './run-sandboxed.ts';
import { createUnsandboxed } from './unsandboxed.ts';

// Process control is the same for every sandbox, so it is tested here without bwrap; the escape battery repeats
// the essentials under bwrap.
const sandbox = createUnsandboxed({ logger: { warn: () => {} } });
let workdir: string;
beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), 'agency-run-')));
});
afterEach(() => rmSync(workdir, { recursive: true, force: true }));

/** True while `pid` is a live (not zombie) process. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Resolves once `pid` is gone; a SIGKILL takes effect a moment after it is sent. */
async function gone(pid: number, withinMs = 500): Promise<boolean> {
  const started = performance.now();
  while (isAlive(pid)) {
    if (performance.now() - started > withinMs) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

const sh = (script: string) => ['sh', '-c', script];

describe('runSandboxed', () => {
  it('reports exit code and output, and feeds stdin', async () => {
    const result = await runSandboxed(sandbox, sh('cat; echo err >&2; exit 3'), { workdir, stdin: 'hello' });
    expect(result).toMatchObject({
      exitCode: 3,
      signal: null,
      stdout: 'hello',
      stderr: 'err\n',
      timedOut: false,
      // The opt-out enforces no limit and says so in its own log line, not in every result.
      limitsReached: [],
      warnings: [],
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('caps stdout and stderr separately and keeps draining', async () => {
    const result = await runSandboxed(
      sandbox,
      sh('head -c 200000 /dev/zero | tr "\\0" a; head -c 5000 /dev/zero >&2'),
      {
        workdir,
        stdoutLimitBytes: 1000,
        stderrLimitBytes: 100,
      },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('a'.repeat(1000));
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stderr).toHaveLength(100);
    expect(result.stderrTruncated).toBe(true);
  });

  it('kills the whole process group on timeout', async () => {
    const pidFile = join(workdir, 'bg.pid');
    const result = await runSandboxed(sandbox, sh(`sleep 30 & echo $! > ${pidFile}; wait`), {
      workdir,
      timeoutMs: 300,
    });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGTERM');
    expect(result.durationMs).toBeLessThan(2000);
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
  });

  it('escalates to SIGKILL when SIGTERM is ignored', async () => {
    const result = await runSandboxed(sandbox, sh('trap "" TERM; sleep 30'), {
      workdir,
      timeoutMs: 200,
      killGraceMs: 200,
    });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(result.durationMs).toBeGreaterThanOrEqual(350);
    expect(result.durationMs).toBeLessThan(2000);
  });

  it('kills leftovers in the group when the command exits', async () => {
    const pidFile = join(workdir, 'bg.pid');
    const result = await runSandboxed(sandbox, sh(`sleep 30 >/dev/null 2>&1 & echo $! > ${pidFile}`), { workdir });
    expect(result.exitCode).toBe(0);
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
  });

  it('rejects with aborted once an aborted command is gone', async () => {
    const pidFile = join(workdir, 'bg.pid');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = performance.now();
    const run = runSandboxed(sandbox, sh(`sleep 30 & echo $! > ${pidFile}; wait`), {
      workdir,
      signal: controller.signal,
    });
    await expect(run).rejects.toSatisfy((error) => AgencyError.hasCode(error, 'aborted'));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
  });

  it('does not start when the signal is already aborted', async () => {
    const marker = join(workdir, 'marker');
    const run = runSandboxed(sandbox, ['touch', marker], {
      workdir,
      signal: AbortSignal.abort(),
    });
    await expect(run).rejects.toSatisfy((error) => AgencyError.hasCode(error, 'aborted'));
    expect(existsSync(marker)).toBe(false);
  });

  it('reports a command that cannot start as sandbox_failed', async () => {
    const run = runSandboxed(sandbox, ['/nonexistent/command'], { workdir });
    await expect(run).rejects.toSatisfy((error) => AgencyError.hasCode(error, 'sandbox_failed'));
  });

  it('refuses nonsensical limits', async () => {
    await expect(runSandboxed(sandbox, ['true'], { workdir, timeoutMs: 0 })).rejects.toThrow(/timeoutMs/);
    await expect(runSandboxed(sandbox, ['true'], { workdir, stdoutLimitBytes: -1 })).rejects.toThrow(/stdoutLimit/);
  });
});
