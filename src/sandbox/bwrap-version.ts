import { notBubblewrapError } from './sandbox-unavailable.ts';
import { spawnCapture } from './spawn-capture.ts';

/** The oldest bubblewrap with every flag the sandbox uses (`--disable-userns`, `--size`). */
export const MIN_BWRAP_VERSION: readonly [number, number, number] = [0, 8, 0];

/**
 * Runs `file --version` and checks that it prints `bubblewrap X.Y.Z` with a version of at least
 * {@link MIN_BWRAP_VERSION}. Throws AgencyError `sandbox_unavailable` naming the file and the fix when it does not,
 * so a stand-in such as `/usr/bin/true`, which would "run" every command with exit code 0, is never trusted.
 */
export async function assertBubblewrap(file: string, cwd: string, timeoutMs: number): Promise<void> {
  const result = await spawnCapture(
    { file, args: ['--version'], env: { PATH: '/usr/bin:/bin' }, cwd },
    { timeoutMs, killGraceMs: 500, stdoutLimitBytes: 4096, stderrLimitBytes: 4096, now: () => performance.now() },
  );
  const output = `${result.stdout}${result.stderr}`;
  const version = /^bubblewrap (\d+)\.(\d+)\.(\d+)\s*$/.exec(result.stdout)?.slice(1).map(Number);
  if (result.exitCode !== 0 || version === undefined || compare(version, MIN_BWRAP_VERSION) < 0) {
    throw notBubblewrapError(file, output || `no output, exit code ${String(result.exitCode)}`);
  }
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < b.length; i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
