import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { createBwrapSandbox } from './bwrap-sandbox.ts';
import { checkSandbox } from './check-sandbox.ts';
import { runSandboxed } from './run-sandboxed.ts';
import { createUnsandboxed } from './unsandboxed.ts';

// These run everywhere, with or without bubblewrap: failing closed must never depend on the host.
const bwrapWorks = (await checkSandbox(createBwrapSandbox())).ok;
let base: string;
let workdir: string;
let scratch: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'agency-fail-closed-'));
  workdir = join(base, 'work');
  scratch = join(base, 'scratch');
  mkdirSync(workdir);
  mkdirSync(scratch);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function isUnavailable(error: unknown): boolean {
  return AgencyError.hasCode(error, 'sandbox_unavailable');
}

describe('fail closed', () => {
  it('refuses to run when the bwrap binary is missing, and says how to fix it', async () => {
    const sandbox = createBwrapSandbox({ bwrapPath: '/nonexistent/bwrap' });
    const marker = join(workdir, 'marker');
    const run = runSandboxed(sandbox, ['sh', '-c', `touch ${marker}`], { workdir }, { tmpDir: scratch });
    const error = await run.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isUnavailable(error), String(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('/nonexistent/bwrap');
    expect(message).toContain('apt-get install bubblewrap');
    expect(message).toContain("sandbox: 'none'");
    expect(existsSync(marker)).toBe(false);
    expect(readdirSync(scratch)).toEqual([]);

    const status = await checkSandbox(sandbox);
    expect(status.ok).toBe(false);
    expect(status.ok === false && isUnavailable(status.error)).toBe(true);
  });

  it('refuses to run when bwrap cannot create namespaces, probing only once', async () => {
    const calls = join(base, 'calls');
    const fake = join(base, 'fake-bwrap');
    writeFileSync(
      fake,
      `#!/bin/sh\necho "$*" >> ${calls}\n[ "$1" = --version ] && echo 'bubblewrap 0.8.0' && exit 0\n` +
        `echo 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n`,
    );
    chmodSync(fake, 0o755);
    const sandbox = createBwrapSandbox({ bwrapPath: fake });
    const marker = join(workdir, 'marker');
    for (let i = 0; i < 2; i++) {
      const run = runSandboxed(sandbox, ['sh', '-c', `touch ${marker}`], { workdir }, { tmpDir: scratch });
      await expect(run).rejects.toSatisfy(isUnavailable);
      await expect(run).rejects.toThrow(/No permissions to creating new namespace.*user namespaces/);
    }
    const invocations = readFileSync(calls, 'utf8').trim().split('\n');
    expect(invocations).toHaveLength(2);
    expect(invocations[0]).toBe('--version');
    expect(invocations[1]).toMatch(/-- sh -c echo agency-sandbox-probe-[0-9a-f]{16}; cat \/proc\/self\/status;/);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses a bwrapPath that is not bubblewrap, such as /usr/bin/true, and names it', async () => {
    const sandbox = createBwrapSandbox({ bwrapPath: '/usr/bin/true' });
    const run = runSandboxed(sandbox, ['sh', '-c', 'exit 0'], { workdir }, { tmpDir: scratch });
    await expect(run).rejects.toSatisfy(isUnavailable);
    await expect(run).rejects.toThrow(/"\/usr\/bin\/true" is not bubblewrap 0\.8\.0 or later.*Fix: install bubblewrap/);
  });

  it('refuses a bwrap that claims the version but does not run the command', async () => {
    const fake = join(base, 'fake-bwrap');
    writeFileSync(fake, `#!/bin/sh\n[ "$1" = --version ] && echo 'bubblewrap 0.9.0'\nexit 0\n`);
    chmodSync(fake, 0o755);
    const run = runSandboxed(createBwrapSandbox({ bwrapPath: fake }), ['true'], { workdir }, { tmpDir: scratch });
    await expect(run).rejects.toSatisfy(isUnavailable);
    await expect(run).rejects.toThrow(/without printing its marker/);
  });

  it('refuses a wrapper that claims the version and runs the command unsandboxed', async () => {
    const passthru = fileURLToPath(new URL('./__fixtures__/fake-bwrap-passthru.sh', import.meta.url));
    const sandbox = createBwrapSandbox({ bwrapPath: passthru });
    const marker = join(workdir, 'marker');
    const run = runSandboxed(sandbox, ['sh', '-c', `touch ${marker}`], { workdir }, { tmpDir: scratch });
    await expect(run).rejects.toSatisfy(isUnavailable);
    await expect(run).rejects.toThrow(
      /ran the sandbox probe without isolating it \(.*NoNewPrivs.*\).*Fix: pass bubblewrap/,
    );
    expect(existsSync(marker)).toBe(false);
    const status = await checkSandbox(sandbox);
    const problems = status.ok ? [] : (status.error.details?.['problems'] as string[]);
    expect(problems).toEqual(
      expect.arrayContaining([
        'Seccomp "0" where "2"',
        'the host name is not agency-sandbox',
        "it shares agency's pid namespace",
        "it shares agency's mnt namespace",
      ]),
    );
  });

  it.skipIf(!bwrapWorks)('refuses real bubblewrap run without the seccomp filter', async () => {
    const noSeccomp = fileURLToPath(new URL('./__fixtures__/fake-bwrap-no-seccomp.sh', import.meta.url));
    const status = await checkSandbox(createBwrapSandbox({ bwrapPath: noSeccomp }), { tmpDir: scratch });
    expect(status.ok === false && status.error.details?.['problems']).toEqual(['Seccomp "0" where "2"']);
  });

  it('refuses bubblewrap older than 0.8.0, which lacks --disable-userns and --size', async () => {
    const fake = join(base, 'old-bwrap');
    writeFileSync(fake, `#!/bin/sh\necho 'bubblewrap 0.6.1'\n`);
    chmodSync(fake, 0o755);
    const status = await checkSandbox(createBwrapSandbox({ bwrapPath: fake }), { tmpDir: scratch });
    expect(status.ok === false && status.error.message).toContain('bubblewrap 0.6.1');
  });

  it('treats the explicit opt-out as available', async () => {
    const status = await checkSandbox(createUnsandboxed({ logger: { warn: () => {} } }));
    expect(status).toEqual({ ok: true, name: 'none' });
  });
});
