import { mkdir } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { AgencyError } from '../../../core/errors.ts';
import { type BwrapSandboxOptions, createBwrapSandbox } from '../../../sandbox/bwrap-sandbox.ts';
import type { Sandbox } from '../../../sandbox/sandbox.ts';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from '../../../sandbox/sandbox-limits.ts';
import { isWithin } from '../../../sandbox/sandbox-paths.ts';
import { DEFAULT_ETC_PATHS } from '../../../sandbox/system-mounts.ts';
import type { ExecutorRequest } from '../executor.ts';

/** Options every CLI executor (Claude Code, Codex) takes: where its binary is and what its sandbox allows. */
export type CliExecutorOptions = {
  /** The CLI's path. @default the `CLAUDE_BIN` / `CODEX_BIN` environment variable, else the name on `searchPath` */
  bin?: string | undefined;
  /** Where a bare name (and a script's interpreter) is looked up. @default process.env.PATH */
  searchPath?: string | undefined;
  /** The sandbox every run goes through. @default createExecutorSandbox() */
  sandbox?: Sandbox | undefined;
  /** Share the host network: the CLI must reach its model API. Off leaves it only a private loopback. @default true */
  allowNetwork?: boolean | undefined;
  /** More host paths visible read-only (a toolchain, `~/.gitconfig`). @default [] */
  readOnlyPaths?: readonly string[] | undefined;
  /** More host paths writable besides the session dir and `HOME`. @default [] */
  readWritePaths?: readonly string[] | undefined;
  /** The sandbox's limits; the CPU limit is raised to the task's timeout. @default DEFAULT_SANDBOX_LIMITS */
  limits?: SandboxLimits | undefined;
  /** Between SIGTERM and SIGKILL on cancel or timeout. @default 10_000 */
  killGraceMs?: number | undefined;
  /** Raw stdout and stderr kept per run (for `GET /task/:id/debug`); the events see all of it. @default 4 MiB */
  outputLimitBytes?: number | undefined;
};

/** The /etc files an executor's sandbox shows: the sandbox's defaults without the host's user and group lists. */
export const EXECUTOR_ETC_PATHS: readonly string[] = DEFAULT_ETC_PATHS.filter(
  (path) => path !== '/etc/passwd' && path !== '/etc/group',
);

/**
 * The bwrap sandbox the CLI executors run in by default: agency's sandbox (docs/sandbox.md) without `/etc/passwd`
 * and `/etc/group`, which Claude Code and Codex do not need (the command is `nobody` either way).
 */
export function createExecutorSandbox(options: BwrapSandboxOptions = {}): Sandbox {
  return createBwrapSandbox({ etcPaths: EXECUTOR_ETC_PATHS, ...options });
}

/** The environment's `HOME` when the caller set one (a per-worker directory), else the session dir. */
export async function prepareHome(request: Pick<ExecutorRequest, 'env' | 'workdir'>): Promise<{
  home: string;
  readWritePaths: string[];
}> {
  const home = request.env['HOME'];
  if (home === undefined || home === '') return { home: request.workdir, readWritePaths: [] };
  if (!isAbsolute(home)) {
    throw new AgencyError('invalid_argument', `HOME=${JSON.stringify(home)} must be an absolute path.`);
  }
  await mkdir(home, { recursive: true, mode: 0o700 });
  return { home, readWritePaths: isWithin(home, request.workdir) ? [] : [home] };
}

/** The sandbox's limits for one task: the CPU limit never ends a run before its timeout does. */
export function limitsFor(limits: SandboxLimits | undefined, timeoutMs: number): SandboxLimits {
  const cpuSeconds = Math.max(limits?.cpuSeconds ?? DEFAULT_SANDBOX_LIMITS.cpuSeconds, Math.ceil(timeoutMs / 1000));
  return { ...limits, cpuSeconds };
}
