import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { runSandboxed } from './run-sandboxed.ts';
import { createUnsandboxed } from './unsandboxed.ts';

let workdir: string;
beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), 'agency-unsandboxed-')));
});
afterEach(() => rmSync(workdir, { recursive: true, force: true }));

function recordingLogger() {
  const warnings: string[] = [];
  return {
    warnings,
    logger: { warn: (message: string) => warnings.push(message) },
  };
}

describe('createUnsandboxed', () => {
  it('logs a loud warning on every call', async () => {
    const { warnings, logger } = recordingLogger();
    const sandbox = createUnsandboxed({ logger });
    await runSandboxed(sandbox, ['true'], { workdir });
    await runSandboxed(sandbox, ['true'], { workdir });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/WARNING: running "true" UNSANDBOXED/);
  });

  it('runs in the workdir with only the given environment', async () => {
    const sandbox = createUnsandboxed(recordingLogger());
    const result = await runSandboxed(sandbox, ['sh', '-c', 'pwd; echo "$GIVEN|$HOME"'], {
      workdir,
      env: { GIVEN: 'yes' },
    });
    expect(result.stdout).toBe(`${workdir}\nyes|\n`);
  });

  it('still validates the workdir', () => {
    const sandbox = createUnsandboxed(recordingLogger());
    expect(() => sandbox.wrap(['true'], { workdir: 'relative' })).toThrow(/must be absolute/);
    expect(() => sandbox.wrap(['true'], { workdir: '/' })).toThrow(/must not be writable/);
  });

  it('refuses files it cannot mount and leaves none behind', async () => {
    const { warnings, logger } = recordingLogger();
    const staging = mkdtempSync(join(tmpdir(), 'agency-unsandboxed-staging-'));
    try {
      const run = runSandboxed(
        createUnsandboxed({ logger }),
        ['true'],
        { workdir, files: [{ path: '/run/secrets/token', content: 'tok' }] },
        { tmpDir: staging },
      );
      await expect(run).rejects.toSatisfy((error) => AgencyError.hasCode(error, 'invalid_argument'));
      expect(warnings).toHaveLength(0);
      expect(readdirSync(staging)).toEqual([]);
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  });
});
