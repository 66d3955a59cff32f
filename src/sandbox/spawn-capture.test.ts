import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CaptureOptions, spawnCapture } from './spawn-capture.ts';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'agency-spawn-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const options = (extra: Partial<CaptureOptions> = {}): CaptureOptions => ({
  timeoutMs: 5000,
  killGraceMs: 200,
  stdoutLimitBytes: 4096,
  stderrLimitBytes: 4096,
  now: () => performance.now(),
  ...extra,
});
const text = (value: string) => new TextEncoder().encode(value);

describe('spawnCapture inputs', () => {
  it('writes each input to fd 3 + i, and the release input only once the process is placed', async () => {
    const events: string[] = [];
    const result = await spawnCapture(
      {
        file: 'sh',
        args: ['-c', 'cat <&3; read go <&4; echo " released"'],
        env: { PATH: '/usr/bin:/bin' },
        cwd: dir,
        inputs: [text('filter'), text('1\n')],
        releaseInput: 1,
      },
      options({
        place: async (pid) => {
          events.push(`placed ${typeof pid}`);
        },
      }),
    );
    expect(events).toEqual(['placed number']);
    expect(result.stdout).toBe('filter released\n');
  });

  it('kills the process and rejects with the error when placing it fails, before the command goes on', async () => {
    const marker = join(dir, 'ran');
    const run = spawnCapture(
      {
        file: 'sh',
        args: ['-c', `read go <&3; touch ${marker}`],
        env: { PATH: '/usr/bin:/bin' },
        cwd: dir,
        inputs: [text('1\n')],
        releaseInput: 0,
      },
      options({ place: () => Promise.reject(new Error('no cgroup for you')) }),
    );
    await expect(run).rejects.toThrow('no cgroup for you');
    expect(existsSync(marker)).toBe(false);
  });

  it('reports an abort during placement as an abort, not as a failure to start, and never releases', async () => {
    const marker = join(dir, 'ran');
    const controller = new AbortController();
    const result = await spawnCapture(
      {
        file: 'sh',
        args: ['-c', `read go <&3; touch ${marker}`],
        env: { PATH: '/usr/bin:/bin' },
        cwd: dir,
        inputs: [text('1\n')],
        releaseInput: 0,
      },
      options({
        signal: controller.signal,
        // The process dies while it is being placed, as bwrap does when its run is aborted during setup.
        place: async () => {
          controller.abort();
          throw new Error('ESRCH: no such process, write');
        },
      }),
    );
    expect(result.aborted).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('spawnCapture streaming', () => {
  it('passes every chunk to onOutput as it arrives, beyond the caps, and after an abort', async () => {
    const seen = { stdout: '', stderr: '' };
    const controller = new AbortController();
    const result = await spawnCapture(
      {
        file: 'sh',
        args: ['-c', 'printf "%06000d" 0; echo oops >&2; echo line; sleep 30'],
        env: { PATH: '/usr/bin:/bin' },
        cwd: dir,
      },
      options({
        signal: controller.signal,
        onOutput: (stream, chunk) => {
          seen[stream] += chunk.toString();
          if (seen.stdout.endsWith('line\n')) controller.abort();
        },
      }),
    );
    expect(result).toMatchObject({ aborted: true, stdoutTruncated: true, stderr: 'oops\n' });
    expect(result.stdout).toHaveLength(4096);
    expect(seen).toEqual({ stdout: `${'0'.repeat(6000)}line\n`, stderr: 'oops\n' });
  });
});
