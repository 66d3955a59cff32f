import { z } from 'zod';
import { AgencyError } from '../../core/errors.ts';
import { runSandboxed } from '../../sandbox/run-sandboxed.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { defineTool, type Tool } from '../define-tool.ts';
import {
  type ExecEnvironmentOptions,
  type RunReport,
  resolveSandbox,
  runEnvironment,
  runReport,
} from './exec-options.ts';
import { positiveLimit } from './option-checks.ts';

/** Options for {@link createSandboxExecTool}. */
export type SandboxExecToolOptions = ExecEnvironmentOptions & {
  /** The default time limit; the model may ask for up to `maxTimeoutMs`. @default 60000 */
  timeoutMs?: number;
  /** The longest time limit the model may ask for. @default timeoutMs */
  maxTimeoutMs?: number;
  /** Bytes of stdout kept (the start of it); the rest is dropped and `truncated` set. @default 65536 */
  stdoutLimitBytes?: number;
  /** Bytes of stderr kept. @default 65536 */
  stderrLimitBytes?: number;
  /** Time between SIGTERM and SIGKILL on timeout. @default 2000 */
  killGraceMs?: number;
  /**
   * A shell prefix such as `['/bin/sh', '-c']`. When set, the model sends one command string that is appended to
   * it; without it, the model sends an argv array and no shell is involved. @default undefined
   */
  shell?: readonly string[];
};

/** What `sandbox_exec` takes. `command` is a string only when a `shell` is configured. */
export type SandboxExecInput = {
  command: string | string[];
  stdin?: string | undefined;
  timeout_ms?: number | undefined;
};

/** What `sandbox_exec` returns. A non-zero exit or a timeout is a result, not an error. */
export type SandboxExecOutput = RunReport & {
  /** Null when the command was killed by a signal (for example on timeout). */
  exit_code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timed_out: boolean;
  /** stdout or stderr went over its limit and was cut. */
  truncated: boolean;
  duration_ms: number;
};

/**
 * `sandbox_exec` (effects `exec`, not idempotent): runs a command in the sandbox, in the workdir the harness chose,
 * with a clean environment, capped output and a timeout. The model sends an argv array; no shell is involved
 * unless the harness configures one (`shell: ['/bin/sh', '-c']`). With the default `'bwrap'` sandbox nothing runs
 * when bubblewrap cannot (`sandbox_unavailable`); `sandbox: 'none'` is the explicit opt-out.
 *
 * @example
 * const exec = createSandboxExecTool({ workdir: '/runs/t1/progress/artifacts', timeoutMs: 30_000 });
 */
export function createSandboxExecTool(options: SandboxExecToolOptions): Tool<SandboxExecInput, SandboxExecOutput> {
  const {
    timeoutMs = 60_000,
    maxTimeoutMs = timeoutMs,
    stdoutLimitBytes = 65_536,
    stderrLimitBytes = 65_536,
    killGraceMs = 2_000,
    shell,
  } = options;
  for (const [name, value] of Object.entries({ timeoutMs, maxTimeoutMs, stdoutLimitBytes, stderrLimitBytes })) {
    positiveLimit('sandbox_exec', name, value);
  }
  if (shell !== undefined && (shell.length === 0 || shell.some((part) => typeof part !== 'string' || part === ''))) {
    throw new AgencyError('invalid_argument', "sandbox_exec: shell must be a non-empty argv such as ['/bin/sh', '-c']");
  }
  const sandbox: Sandbox = resolveSandbox(options.sandbox, options.logger);
  const environment = runEnvironment(options);
  const command = shell
    ? z
        .string()
        .min(1)
        .describe(`A command line, run as ${JSON.stringify([...shell, '<command>'])}`)
    : z.array(z.string()).min(1).describe('The program and its arguments, e.g. ["node", "build.js"]; no shell');
  return defineTool({
    name: 'sandbox_exec',
    description:
      'Run a command in an isolated sandbox whose working directory is the output folder. Returns exit_code, ' +
      `stdout, stderr, timed_out and truncated. ${shell ? 'Send a shell command line.' : 'Send an argv array; there is no shell (no pipes, globs or $VARS).'}`,
    input: z.object({
      command,
      stdin: z.string().optional().describe('Text written to the command on standard input'),
      timeout_ms: z.number().int().min(1).max(maxTimeoutMs).optional().describe(`Default ${timeoutMs}`),
    }),
    effects: 'exec',
    idempotent: false,
    timeoutMs: maxTimeoutMs + killGraceMs + 5_000,
    execute: async (input: SandboxExecInput, { signal }) => {
      const argv = typeof input.command === 'string' ? [...(shell ?? []), input.command] : input.command;
      const result = await runSandboxed(sandbox, argv, {
        ...environment,
        timeoutMs: input.timeout_ms ?? timeoutMs,
        killGraceMs,
        stdoutLimitBytes,
        stderrLimitBytes,
        signal,
        ...(input.stdin === undefined ? {} : { stdin: input.stdin }),
      });
      return {
        exit_code: result.exitCode,
        signal: result.signal,
        stdout: result.stdout,
        stderr: result.stderr,
        timed_out: result.timedOut,
        truncated: result.stdoutTruncated || result.stderrTruncated,
        duration_ms: Math.round(result.durationMs),
        ...runReport(result, environment),
      };
    },
  });
}
