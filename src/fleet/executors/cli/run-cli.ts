import { AgencyError } from '../../../core/errors.ts';
import { runSandboxed } from '../../../sandbox/run-sandboxed.ts';
import type { Sandbox } from '../../../sandbox/sandbox.ts';
import type { SandboxLimits } from '../../../sandbox/sandbox-limits.ts';
import { type CaptureResult, createSink, spawnCapture } from '../../../sandbox/spawn-capture.ts';
import { createLineSplitter } from './line-splitter.ts';

/** How a CLI run ended: on its own, stopped by its timeout or by a cancel, or not started by the sandbox. */
export type CliOutcome = 'exited' | 'timeout' | 'cancelled' | 'sandbox_error';

/** What a CLI run did; `stdout` and `stderr` are kept up to their caps, also when it was cancelled. */
export type CliRun = {
  outcome: CliOutcome;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Why the sandbox could not run it (`outcome: 'sandbox_error'`). */
  problem?: string;
};

/** What every CLI run needs. */
export type CliRunOptions = {
  command: readonly string[];
  workdir: string;
  env: Record<string, string>;
  stdin?: string | undefined;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL on timeout or cancel. */
  killGraceMs: number;
  signal: AbortSignal;
  /** Each line of stdout, as it arrives. */
  onLine: (line: string) => void;
  /** Raw output kept per stream. */
  outputLimitBytes: number;
};

/** Where a sandboxed CLI may read, write and connect. */
export type CliSandboxOptions = {
  sandbox: Sandbox;
  readOnlyPaths: readonly string[];
  readWritePaths: readonly string[];
  allowNetwork: boolean;
  limits?: SandboxLimits | undefined;
};

// What bwrap prints when it cannot set up the sandbox (a missing bind source, no namespaces) before the command runs.
const BWRAP_FAILURE = /^bwrap: /;
const SANDBOX_CODES = ['sandbox_unavailable', 'sandbox_failed', 'invalid_argument'] as const;

/**
 * Runs a CLI under the sandbox, streaming its stdout lines. Never throws for the run itself: a timeout, a cancel and
 * a sandbox that could not start it are outcomes, so the caller can report them with the output there was.
 */
export async function runSandboxedCli(options: CliRunOptions & CliSandboxOptions): Promise<CliRun> {
  const capture = createCapture(options);
  try {
    const result = await runSandboxed(options.sandbox, options.command, {
      workdir: options.workdir,
      readOnlyPaths: options.readOnlyPaths,
      readWritePaths: options.readWritePaths,
      allowNetwork: options.allowNetwork,
      env: options.env,
      stdin: options.stdin,
      timeoutMs: options.timeoutMs,
      killGraceMs: options.killGraceMs,
      signal: options.signal,
      limits: options.limits,
      // The capture keeps the output, also for an aborted run (which rejects).
      stdoutLimitBytes: 0,
      stderrLimitBytes: 0,
      onOutput: capture.onOutput,
    });
    const run = capture.finish(result.timedOut ? 'timeout' : 'exited', result.exitCode);
    if (run.exitCode !== 0 && run.stdout === '' && BWRAP_FAILURE.test(run.stderr)) {
      return { ...run, outcome: 'sandbox_error', problem: run.stderr.trim().split('\n')[0] ?? run.stderr };
    }
    return run;
  } catch (error) {
    if (AgencyError.hasCode(error, 'aborted')) return capture.finish('cancelled', null);
    if (SANDBOX_CODES.some((code) => AgencyError.hasCode(error, code))) {
      return { ...capture.finish('sandbox_error', null), problem: (error as AgencyError).message };
    }
    throw error;
  }
}

/**
 * Runs a command as a plain child process in its own process group (the built-in runner, whose tools sandbox
 * themselves), streaming its stdout lines; timeout and cancel stop its whole tree like a sandboxed run's.
 */
export async function runChildCli(options: CliRunOptions): Promise<CliRun> {
  const capture = createCapture(options);
  const [file, ...args] = options.command;
  if (file === undefined) throw new AgencyError('invalid_argument', 'runChildCli needs a command.');
  const result: CaptureResult = await spawnCapture(
    { file, args, env: options.env, cwd: options.workdir },
    {
      stdin: options.stdin,
      timeoutMs: options.timeoutMs,
      killGraceMs: options.killGraceMs,
      signal: options.signal,
      stdoutLimitBytes: 0,
      stderrLimitBytes: 0,
      now: () => performance.now(),
      onOutput: capture.onOutput,
    },
  );
  const outcome = result.aborted ? 'cancelled' : result.timedOut ? 'timeout' : 'exited';
  return capture.finish(outcome, result.exitCode);
}

function createCapture({ onLine, outputLimitBytes }: CliRunOptions) {
  // A throwing handler must not become an uncaught exception in the middle of a stream; the run goes on and the
  // failure is noted with its stderr.
  let handlerError: unknown;
  const lines = createLineSplitter((line) => {
    try {
      onLine(line);
    } catch (error) {
      handlerError ??= error;
    }
  });
  const stdout = createSink(outputLimitBytes);
  const stderr = createSink(outputLimitBytes);
  return {
    onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => {
      if (stream === 'stderr') return stderr.push(chunk);
      stdout.push(chunk);
      lines.push(chunk);
    },
    finish: (outcome: CliOutcome, exitCode: number | null): CliRun => {
      lines.end();
      const note = handlerError === undefined ? '' : `\nagency: a stdout line handler threw: ${String(handlerError)}\n`;
      return { outcome, exitCode, stdout: stdout.text(), stderr: stderr.text() + note };
    },
  };
}
