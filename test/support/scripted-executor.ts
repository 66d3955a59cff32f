// An executor module for tests that run a real `agency worker` process (its AGENCY_WORKER_TEST_EXECUTOR hook). It
// does what the task's prompt says, deterministically:
//   sleep <ms>         finishes after <ms>, or ends with partial output when stopped
//   hang               runs until stopped, then ends with partial output
//   stubborn           runs until the worker gives up on it: it ignores being stopped, as a stuck process would
//   echo-env <NAME>    puts the variable's value in its output, stdout, stderr and events, and its sha256 in the output
//   write <file>       writes <file> in its working directory and lists the directory
//   fail <type>        fails with that error type
//   steps <n> <ms> [<gate>]  reports n tool calls and their results, <ms> apart, then answers "stepped <n>"; with
//                      a gate file, waits for that file to exist before the last step
//   big <chars>        reports a warning of <chars> characters, then answers "big"
//   anything else      answers "done: <text>"
// A worker started with SCRIPTED_EXECUTOR_FAIL=<type> fails every task with that error type.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Executor, ExecutorRequest, ExecutorResult } from '../../src/fleet/executors/executor.ts';
import type { ExecutorSetup } from '../../src/fleet/executors/load-executor.ts';

export function createExecutor(setup: ExecutorSetup): Executor {
  return {
    kind: setup.config.executor,
    // SCRIPTED_EXECUTOR_CHECK=fail fails the check; SCRIPTED_EXECUTOR_CHECK_MS=<ms> keeps the worker starting that long.
    async check() {
      if (setup.hostEnv.SCRIPTED_EXECUTOR_CHECK === 'fail') return { ok: false, problem: 'scripted: told to fail' };
      await new Promise((resolve) => setTimeout(resolve, Number(setup.hostEnv.SCRIPTED_EXECUTOR_CHECK_MS ?? 0)));
      return { ok: true, version: 'scripted 1.0' };
    },
    run: (request) => {
      const failing = setup.hostEnv.SCRIPTED_EXECUTOR_FAIL;
      return failing ? run({ ...request, prompt: `fail ${failing}` }) : run(request);
    },
  };
}

/**
 * A task's own text in the whole prompt an executor gets: what follows the composed prompt's last "# Task" heading,
 * after the instructions the worker puts first (a continue sends it alone).
 */
export function taskText(prompt: string): string {
  const at = prompt.lastIndexOf('# Task\n\n');
  return (at === -1 ? prompt : prompt.slice(at + 8)).trim();
}

async function run(request: ExecutorRequest): Promise<ExecutorResult> {
  const text = taskText(request.prompt);
  const [verb = '', argument = ''] = text.split(/\s+/, 2);
  request.onEvent({ type: 'started', message: `scripted executor: ${verb}`, pid: process.pid });
  const ok = (output: string, extra: Partial<ExecutorResult> = {}): ExecutorResult => ({
    exitCode: 0,
    output,
    usage: { input: 100, output: 20 },
    costUsd: 0.001,
    stdout: `{"type":"result","result":${JSON.stringify(output)}}\n`,
    stderr: '',
    ...extra,
  });
  switch (verb) {
    case 'sleep':
    case 'hang': {
      const stopped = await wait(verb === 'hang' ? Infinity : Number(argument), request.signal);
      return stopped
        ? { exitCode: 143, output: 'partial', stdout: 'partial\n', stderr: 'terminated\n' }
        : ok(`slept ${argument}`);
    }
    case 'stubborn':
      return new Promise<never>(() => undefined);
    case 'echo-env': {
      const value = request.env[argument] ?? '';
      const digest = createHash('sha256').update(value).digest('hex');
      const encoded = Buffer.from(value).toString('base64');
      request.onEvent({ type: 'tool.call', tool: 'Bash', input: { command: `echo ${value}` } });
      request.onEvent({ type: 'warning', message: `the value is ${value}` });
      return ok(`sha256=${digest} value=${value} base64=${encoded}`, {
        stdout: `${value}\n${encoded}\n`,
        stderr: `env ${argument}=${value}\n`,
      });
    }
    case 'write': {
      await writeFile(join(request.workdir, argument), 'written');
      return ok(`files: ${(await readdir(request.workdir)).sort().join(',')}; resume=${request.resume}`);
    }
    case 'steps': {
      const [, , pause = '0', gate] = text.split(/\s+/, 4);
      for (let step = 1; step <= Number(argument); step++) {
        const opened = step < Number(argument) || gate === undefined || (await gateOpened(gate, request.signal));
        if (!opened || (await wait(Number(pause), request.signal)))
          return { exitCode: 143, output: 'partial', stdout: '', stderr: '' };
        request.onEvent({ type: 'tool.call', tool: 'Step', input: { step } });
        request.onEvent({ type: 'tool.result', tool: 'Step', ok: true });
      }
      return ok(`stepped ${argument}`);
    }
    case 'big':
      request.onEvent({ type: 'warning', message: 'w'.repeat(Number(argument)) });
      return ok('big');
    case 'fail':
      return {
        exitCode: 1,
        output: '',
        error: { type: argument as 'rate_limit', message: `scripted failure: ${argument}` },
        stdout: '',
        stderr: `error: ${argument}\n`,
      };
    default:
      return ok(`done: ${text}`);
  }
}

// Resolves true once `file` exists, false when the signal stops the wait first.
async function gateOpened(file: string, signal: AbortSignal): Promise<boolean> {
  while (!existsSync(file)) if (await wait(50, signal)) return false;
  return true;
}

// Resolves true when the signal stops the wait first.
function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(true);
    const timer = Number.isFinite(ms) ? setTimeout(() => resolve(false), ms) : undefined;
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        setTimeout(() => resolve(true), 20);
      },
      { once: true },
    );
  });
}
