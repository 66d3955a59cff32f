import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SANDBOX_PATH } from '../../../sandbox/sandbox.ts';
import type { Sandbox } from '../../../sandbox/sandbox.ts';
import type { CliInstall } from './resolve-cli.ts';
import { tailOf } from './cli-result.ts';
import { runSandboxedCli } from './run-cli.ts';

/**
 * Runs `<cli> --version` inside the sandbox the tasks will use, in a scratch directory: it proves the binary is there,
 * that it starts under the sandbox's seccomp filter and limits, and gives the version for `GET /status`.
 */
export async function checkCli(
  install: () => CliInstall,
  { sandbox, readOnlyPaths, name }: { sandbox: Sandbox; readOnlyPaths: readonly string[]; name: string },
): Promise<{ ok: true; version: string } | { ok: false; problem: string }> {
  let cli: CliInstall;
  try {
    cli = install();
  } catch (error) {
    return { ok: false, problem: error instanceof Error ? error.message : String(error) };
  }
  const workdir = await mkdtemp(join(tmpdir(), 'agency-executor-check-'));
  try {
    const run = await runSandboxedCli({
      command: [...cli.command, '--version'],
      workdir,
      env: { HOME: workdir, PATH: DEFAULT_SANDBOX_PATH },
      timeoutMs: 30_000,
      killGraceMs: 1_000,
      signal: new AbortController().signal,
      onLine: () => {},
      outputLimitBytes: 64 * 1024,
      sandbox,
      readOnlyPaths: [...cli.readOnlyPaths, ...readOnlyPaths],
      readWritePaths: [],
      allowNetwork: false,
    });
    const version = run.stdout.trim().split('\n')[0] ?? '';
    if (run.outcome === 'exited' && run.exitCode === 0 && version !== '') return { ok: true, version };
    const why = run.problem ?? (tailOf(run.stderr) || `exit code ${String(run.exitCode)}, ${run.outcome}`);
    return { ok: false, problem: `\`${name} --version\` failed in the sandbox: ${why}` };
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}
