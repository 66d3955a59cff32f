// The benchmark's executor, loaded by `agency worker` through its test hook (AGENCY_WORKER_TEST_EXECUTOR): every
// task runs the command in AGENCY_BENCH_COMMAND (a JSON array) as a process of its own, in the task's session
// directory, and its stdout is the task's output. No sandbox and no model: what is left is the worker's own cost
// (HTTP, bookkeeping, history), which the benchmark sets against spawning the same command directly.
import { spawn } from 'node:child_process';
import type { Executor, ExecutorRequest, ExecutorResult } from '../../src/fleet/executors/executor.ts';
import type { ExecutorSetup } from '../../src/fleet/executors/load-executor.ts';

/** The variable that holds the command, e.g. `["/bin/sh","-c","echo done"]`. */
export const COMMAND_VARIABLE = 'AGENCY_BENCH_COMMAND';

export function createExecutor(setup: ExecutorSetup): Executor {
  const text = setup.hostEnv[COMMAND_VARIABLE];
  const command = text ? (JSON.parse(text) as unknown) : undefined;
  const valid =
    Array.isArray(command) && command.length > 0 && command.every((part): part is string => typeof part === 'string');
  return {
    kind: setup.config.executor,
    check: async () =>
      valid
        ? { ok: true, version: `command ${command.join(' ')}` }
        : {
            ok: false,
            problem: `${COMMAND_VARIABLE} must be a JSON array of strings, e.g. ["/bin/sh","-c","echo done"]`,
          },
    run: (request) => run(command as [string, ...string[]], request),
  };
}

function run([file, ...args]: [string, ...string[]], request: ExecutorRequest): Promise<ExecutorResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: request.workdir, env: request.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    request.onEvent({ type: 'started', message: `${file} started`, ...(child.pid ? { pid: child.pid } : {}) });
    const stop = () => child.kill('SIGTERM');
    request.signal.addEventListener('abort', stop, { once: true });
    child.once('error', (error) => {
      request.signal.removeEventListener('abort', stop);
      resolve({
        exitCode: null,
        output: '',
        error: { type: 'executor_error', message: error.message },
        stdout,
        stderr,
      });
    });
    child.once('close', (code) => {
      request.signal.removeEventListener('abort', stop);
      const failed = code !== 0 && { error: { type: 'executor_error' as const, message: `exit code ${code}` } };
      resolve({ exitCode: code, output: stdout.trim(), stdout, stderr, ...(failed || {}) });
    });
  });
}
