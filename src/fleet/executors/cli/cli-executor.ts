import type { ExecutorKind } from '../../api/worker-schemas.ts';
import type { Executor, ExecutorEvent, ExecutorRequest, ExecutorResult } from '../executor.ts';
import { checkCli } from './check-cli.ts';
import { type CliExecutorOptions, createExecutorSandbox, limitsFor, prepareHome } from './cli-executor-options.ts';
import { cliResult, type ParsedRun } from './cli-result.ts';
import { type CliInstall, resolveCli } from './resolve-cli.ts';
import { runSandboxedCli } from './run-cli.ts';

/** How one run of a CLI starts: its arguments, its environment and what goes on its stdin. */
export type CliInvocation = { args: string[]; env: Record<string, string>; stdin: string; message: string };

/** What makes a CLI executor: how to find the CLI, start a run and read its output. */
export type CliExecutorSpec<Run extends ParsedRun> = {
  kind: ExecutorKind;
  /** The product's name, in messages: `Claude Code`. */
  name: string;
  /** Its command on PATH: `claude`. */
  command: string;
  /** The variable that points at it: `CLAUDE_BIN`. */
  envVar: string;
  /** Turns the found CLI into the one to run (Codex's npm launcher into its native binary). */
  locate?: (found: CliInstall) => CliInstall;
  invoke: (request: ExecutorRequest, home: string) => Promise<CliInvocation>;
  parse: (onEvent: (event: ExecutorEvent) => void) => { handle: (line: string) => void; finish: () => Run };
  /** Runs after every run, whatever its outcome (Codex records its thread id here). */
  settle?: (request: ExecutorRequest, run: Run, home: string) => Promise<void>;
};

/**
 * An executor that runs a CLI agent once per task inside the sandbox: writable only in the session dir, the
 * caller's `HOME` and `readWritePaths`; its install read-only; the network per `allowNetwork`. A sandbox that cannot
 * start it fails the task with `sandbox_error`; there is no unsandboxed fallback.
 */
export function createCliExecutor<Run extends ParsedRun>(
  spec: CliExecutorSpec<Run>,
  {
    bin = process.env[spec.envVar],
    searchPath,
    sandbox = createExecutorSandbox(),
    allowNetwork = true,
    readOnlyPaths = [],
    readWritePaths = [],
    limits,
    killGraceMs = 10_000,
    outputLimitBytes = 4 * 1024 * 1024,
  }: CliExecutorOptions = {},
): Executor {
  let found: CliInstall | undefined;
  const install = () => {
    found ??= (spec.locate ?? ((cli: CliInstall) => cli))(
      resolveCli({ name: spec.command, bin, envVar: spec.envVar, searchPath }),
    );
    return found;
  };
  return {
    kind: spec.kind,
    check: () => checkCli(install, { sandbox, readOnlyPaths, name: spec.command }),
    async run(request): Promise<ExecutorResult> {
      let cli: CliInstall;
      let home: Awaited<ReturnType<typeof prepareHome>>;
      let invocation: CliInvocation;
      try {
        cli = install();
        home = await prepareHome(request);
        invocation = await spec.invoke(request, home.home);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return { exitCode: null, output: '', stdout: '', stderr: '', error: { type: 'executor_error', message } };
      }
      request.onEvent({ type: 'started', message: invocation.message });
      const stream = spec.parse(request.onEvent);
      const run = await runSandboxedCli({
        command: [...cli.command, ...invocation.args],
        workdir: request.workdir,
        env: invocation.env,
        stdin: invocation.stdin,
        timeoutMs: request.timeoutMs,
        killGraceMs,
        signal: request.signal,
        onLine: stream.handle,
        outputLimitBytes,
        sandbox,
        readOnlyPaths: [...cli.readOnlyPaths, ...readOnlyPaths],
        readWritePaths: [...home.readWritePaths, ...readWritePaths],
        allowNetwork,
        limits: limitsFor(limits, request.timeoutMs),
      });
      const parsed = stream.finish();
      await spec.settle?.(request, parsed, home.home).catch((error: unknown) => {
        request.onEvent({ type: 'warning', message: `${spec.name}: after the run: ${String(error)}` });
      });
      return cliResult(run, parsed, { name: spec.name, timeoutMs: request.timeoutMs });
    },
  };
}
