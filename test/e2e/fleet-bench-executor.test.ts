// The fleet benchmark's executor (bench/fleet/command-executor.ts): it refuses a malformed command at its check, runs
// a good one in the session directory, and reports a failing, missing or stopped one.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMMAND_VARIABLE, createExecutor } from '../../bench/fleet/command-executor.ts';
import type { ExecutorRequest } from '../../src/fleet/executors/executor.ts';
import type { ExecutorSetup } from '../../src/fleet/executors/load-executor.ts';

let workdir: string;
beforeEach(async () => {
  workdir = await mkdtemp(join(tmpdir(), 'agency-bench-executor-'));
});
afterEach(async () => {
  await rm(workdir, { recursive: true, force: true });
});

const executor = (command: string | undefined) =>
  createExecutor({
    config: { executor: 'claude' },
    hostEnv: { [COMMAND_VARIABLE]: command },
  } as unknown as ExecutorSetup);
const request = (signal = new AbortController().signal): ExecutorRequest => ({
  taskId: 'task-1',
  sessionId: 's',
  resume: false,
  prompt: 'x',
  model: undefined,
  workdir,
  timeoutMs: 10_000,
  env: {},
  signal,
  onEvent: () => undefined,
});

describe('the benchmark executor', () => {
  it('refuses a command that is missing or not a JSON array of strings, naming the variable', async () => {
    for (const command of [undefined, '[]', '["/bin/sh", 3]', '{"cmd": "x"}']) {
      expect(await executor(command).check()).toEqual({
        ok: false,
        problem: expect.stringContaining(`${COMMAND_VARIABLE} must be a JSON array of strings`),
      });
    }
    expect(() => executor('not json')).toThrow(SyntaxError);
  });

  it('runs the command in the session directory; a failing, missing or stopped one is an executor_error', async () => {
    const pwd = executor(JSON.stringify(['/bin/sh', '-c', 'pwd; echo oops >&2']));
    expect(await pwd.check()).toMatchObject({ ok: true });
    expect(await pwd.run(request())).toMatchObject({ exitCode: 0, output: workdir, stderr: 'oops\n' });
    const failing = await executor(JSON.stringify(['/bin/sh', '-c', 'exit 3'])).run(request());
    expect([failing.exitCode, failing.error]).toEqual([3, { type: 'executor_error', message: 'exit code 3' }]);
    const missing = await executor(JSON.stringify(['/nonexistent/command'])).run(request());
    expect(missing.error).toMatchObject({ type: 'executor_error', message: expect.stringContaining('ENOENT') });
    const stop = new AbortController();
    const running = executor(JSON.stringify(['/bin/sleep', '30'])).run(request(stop.signal));
    stop.abort();
    expect((await running).exitCode).toBeNull();
  });
});
