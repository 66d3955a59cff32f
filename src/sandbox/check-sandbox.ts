import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errnoCode } from '../core/errno.ts';
import { AgencyError } from '../core/errors.ts';
import { assertBubblewrap } from './bwrap-version.ts';
import type { Sandbox, SandboxName } from './sandbox.ts';
import { isolationProbeCommand, isolationProblems } from './isolation-probe.ts';
import { bwrapBrokenError, bwrapMissingError, notIsolatedError } from './sandbox-unavailable.ts';
import { spawnCapture } from './spawn-capture.ts';

/** Whether a sandbox can run commands here; when not, `error` is the AgencyError `sandbox_unavailable` to raise. */
export type SandboxStatus = { ok: true; name: SandboxName } | { ok: false; name: SandboxName; error: AgencyError };

/** Options for {@link checkSandbox}. */
export type CheckSandboxOptions = {
  /** How long the probe may take. @default 10_000 */
  timeoutMs?: number;
  /** Where the probe's scratch workdir is made. @default os.tmpdir() */
  tmpDir?: string;
};

const cache = new WeakMap<Sandbox, Promise<SandboxStatus>>();

/**
 * Probes once whether `sandbox` works here, and caches the answer for that sandbox object (create a new sandbox to
 * probe again). For bwrap it checks that the binary is bubblewrap ≥ 0.8.0, then runs a probe inside the sandbox,
 * with its seccomp filter and limits, that prints a random marker and what it is confined by. Exit code 0 proves
 * nothing, and an echoed marker little more: a wrapper that claims a bubblewrap version and runs commands as they
 * are is refused because the probe does not see uid and gid 65534, no capabilities, `NoNewPrivs` 1, a seccomp
 * filter, the host name `agency-sandbox` and namespaces other than agency's.
 * The `none` sandbox is always available. {@link runSandboxed} calls this before every run, so a missing or fake
 * bwrap, or disabled user namespaces, fail closed.
 *
 * @example
 * const status = await checkSandbox(createBwrapSandbox());
 * if (!status.ok) console.error(status.error.message); // says how to fix it
 */
export function checkSandbox(sandbox: Sandbox, options: CheckSandboxOptions = {}): Promise<SandboxStatus> {
  if (sandbox.name === 'none') return Promise.resolve({ ok: true, name: 'none' });
  let status = cache.get(sandbox);
  if (status === undefined) {
    status = probe(sandbox, options).catch((error: unknown) => {
      cache.delete(sandbox); // no scratch dir could be made: nothing was learned about the sandbox
      throw error;
    });
    cache.set(sandbox, status);
  }
  return status;
}

async function probe(sandbox: Sandbox, { timeoutMs = 10_000, tmpDir = tmpdir() }: CheckSandboxOptions) {
  const workdir = await mkdtemp(join(tmpDir, 'agency-sandbox-probe-'));
  let file: string = sandbox.name;
  const marker = `agency-sandbox-probe-${randomBytes(8).toString('hex')}`;
  try {
    const wrapped = sandbox.wrap(isolationProbeCommand(marker), { workdir });
    file = wrapped.file;
    await assertBubblewrap(file, workdir, timeoutMs);
    const result = await spawnCapture(wrapped, {
      timeoutMs,
      killGraceMs: 500,
      stdoutLimitBytes: 16_384,
      stderrLimitBytes: 4096,
      now: () => performance.now(),
    });
    const marked = result.stdout.startsWith(`${marker}\n`);
    if (result.exitCode !== 0 || !marked) {
      const reason = result.timedOut
        ? `the probe did not finish in ${timeoutMs} ms`
        : result.stderr || `the probe exited with ${String(result.exitCode)} without printing its marker`;
      return { ok: false, name: sandbox.name, error: bwrapBrokenError(file, reason) } as const;
    }
    const problems = isolationProblems(result.stdout, marker);
    if (problems.length > 0) return { ok: false, name: sandbox.name, error: notIsolatedError(file, problems) } as const;
    return { ok: true, name: sandbox.name } as const;
  } catch (error) {
    return {
      ok: false,
      name: sandbox.name,
      error: toUnavailable(error, file),
    } as const;
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}

function toUnavailable(error: unknown, file: string): AgencyError {
  if (AgencyError.hasCode(error, 'sandbox_unavailable')) return error;
  const code = errnoCode(error);
  if (code === 'ENOENT' || code === 'EACCES') return bwrapMissingError(file, error);
  return bwrapBrokenError(file, error instanceof Error ? error.message : String(error), error);
}
