import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
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
  it('writes each input to fd 3 + i and closes it', async () => {
    const result = await spawnCapture(
      {
        file: 'sh',
        args: ['-c', 'cat <&3; cat <&4'],
        env: { PATH: '/usr/bin:/bin' },
        cwd: dir,
        inputs: [text('filter'), text(' and more\n')],
      },
      options(),
    );
    expect(result.stdout).toBe('filter and more\n');
  });
});
