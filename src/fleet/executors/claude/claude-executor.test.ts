import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSandbox } from '../../../sandbox/check-sandbox.ts';
import {
  createSessionArea,
  executorRequest,
  MOCK_CLAUDE,
  NODE_FIRST_PATH,
  processesWithArg,
  waitForEvent,
} from '../../../../test/support/executor-fixture.ts';
import { createExecutorSandbox } from '../cli/cli-executor-options.ts';
import type { ExecutorRequest } from '../executor.ts';
import { createClaudeExecutor } from './claude-executor.ts';

// The Claude Code executor against test/support/mock-claude.mts, in the real sandbox; test/e2e/claude-cli-executor
// runs the real CLI.
const sandbox = createExecutorSandbox();
const status = await checkSandbox(sandbox);
const skipReason = status.ok ? '' : ` (skipped: ${status.error.message})`;
if (!status.ok) console.warn(`Claude Code executor tests skipped: ${status.error.message}`);

const executor = createClaudeExecutor({ bin: MOCK_CLAUDE, searchPath: NODE_FIRST_PATH, sandbox });
let area: ReturnType<typeof createSessionArea>;
beforeEach(() => {
  area = createSessionArea();
});
afterEach(() => area.cleanup());

function task(prompt: string, sessionId = randomUUID(), extra: Partial<ExecutorRequest> = {}) {
  return executorRequest({ prompt, sessionId, workdir: area.workdir(sessionId), env: { HOME: area.home }, ...extra });
}

describe.skipIf(!status.ok)(`the Claude Code executor with mock-claude${skipReason}`, () => {
  it('answers its check with the version, from inside the sandbox', async () => {
    expect(await executor.check()).toEqual({ ok: true, version: '0.0.0-mock (Claude Code)' });
  });

  it('runs a session and continues it twice, in its session dir, with its config in HOME', async () => {
    const sessionId = randomUUID();
    const first = task('write the file', sessionId);
    const result = await executor.run(first.request);
    expect(result).toMatchObject({
      exitCode: 0,
      output: `Done with turn 1 of session ${sessionId}.`,
      usage: { input: 1000, output: 50 },
      costUsd: 0.01,
    });
    expect(result.error).toBeUndefined();
    expect(first.events.map((event) => event.type)).toEqual(['started', 'text', 'tool.call', 'tool.result', 'usage']);
    expect(first.events[2]).toMatchObject({
      tool: 'Write',
      input: { file_path: join(first.request.workdir, 'mock-output.txt') },
    });
    for (const turn of [2, 3]) {
      const next = task(`turn ${turn}`, sessionId, { resume: true });
      expect(await executor.run(next.request)).toMatchObject({
        exitCode: 0,
        output: `Done with turn ${turn} of session ${sessionId}.`,
      });
      expect(next.events[0]).toEqual({ type: 'started', message: `Claude Code resumes session ${sessionId}` });
    }
    expect(readFileSync(join(first.request.workdir, 'mock-output.txt'), 'utf8')).toBe('turn 3: turn 3');
    expect(readdirSync(join(area.home, '.claude', 'projects'))).toHaveLength(1);
    expect(result.stdout.split('\n')[0]).toContain('"subtype":"init"');
  });

  it('keeps Claude Code in the session dir when the caller gives no HOME', async () => {
    const run = task('hello');
    const result = await executor.run({ ...run.request, env: {} });
    expect(result.error).toBeUndefined();
    expect(existsSync(join(run.request.workdir, '.claude', 'projects'))).toBe(true);
    expect(readdirSync(area.home)).toEqual([]);
  });

  it.each([
    ['rate-limit', 'rate_limit'],
    ['invalid-api-key', 'invalid_api_key'],
    ['context-window', 'context_window'],
    ['network', 'network'],
  ] as const)('classifies a %s failure as %s', async (mode, type) => {
    const result = await executor.run(task(`mock:${mode}`).request);
    expect(result).toMatchObject({ exitCode: 1, error: { type } });
  });

  it('reports a crash with its exit code and stderr, and an unknown session to resume', async () => {
    expect(await executor.run(task('mock:crash').request)).toMatchObject({
      exitCode: 2,
      error: {
        type: 'executor_error',
        message: expect.stringContaining('Claude Code exited with code 2: TypeError: mock crashed') as unknown,
      },
    });
    expect(await executor.run(task('hello', randomUUID(), { resume: true }).request)).toMatchObject({
      exitCode: 1,
      error: {
        type: 'executor_error',
        message: expect.stringMatching(/^No conversation found with session ID/) as unknown,
      },
    });
  });

  it('cancel stops the whole process tree at once and keeps the partial output', async () => {
    const marker = `${1000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1000}`;
    const run = task('mock:slow', randomUUID(), { env: { HOME: area.home, MOCK_CLAUDE_MARKER: marker } });
    const pending = executor.run(run.request);
    await waitForEvent(run.events, (event) => event.type === 'text');
    await waitForProcess(marker);
    const cancelled = performance.now();
    run.abort();
    const result = await pending;
    expect(performance.now() - cancelled).toBeLessThan(11_000);
    expect(result).toMatchObject({ exitCode: null, output: 'Working slowly.', error: { type: 'cancelled' } });
    expect(result.stdout).toContain('"subtype":"init"');
    expect(processesWithArg(marker)).toEqual([]);
  });

  it('times out like a cancel, with error type timeout', async () => {
    const run = task('mock:slow', randomUUID(), { timeoutMs: 1_500 });
    const result = await executor.run(run.request);
    expect(result).toMatchObject({
      output: 'Working slowly.',
      error: { type: 'timeout', message: 'Claude Code exceeded its timeout of 1.5 s.' },
    });
  });

  it('keeps an escape attempt inside the session dir (seed 004 appendix E)', async () => {
    const canary = join(area.base, 'canary.txt');
    writeFileSync(canary, 'secret');
    const outside = join(area.base, 'outside.txt');
    const sessionId = randomUUID();
    const run = task('mock:escape', sessionId, {
      env: { HOME: area.home, MOCK_CLAUDE_CANARY: canary, MOCK_CLAUDE_OUTSIDE: outside },
    });
    const result = await executor.run(run.request);
    expect(result.output).toMatch(/^ESCAPE_BLOCKED\n/);
    expect(result.output).toMatch(/read \/etc\/shadow: blocked: Error: ENOENT/);
    expect(result.output).toMatch(/read \/etc\/passwd: blocked: Error: ENOENT/);
    expect(result.exitCode).toBe(0);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(`/tmp/agency-escape-${sessionId}`)).toBe(false);
    // The writes "succeed" into the sandbox's private /tmp (where bwrap made the session dir's mount point); the
    // host never sees them, as checked above.
    const results = run.events.filter((event) => event.type === 'tool.result');
    expect(results.map((event) => 'ok' in event && event.ok)).toEqual([false, false, true, false, true]);
  });

  it('fails with sandbox_error, running nothing, when the sandbox cannot be set up', async () => {
    const broken = createClaudeExecutor({
      bin: MOCK_CLAUDE,
      searchPath: NODE_FIRST_PATH,
      sandbox: createExecutorSandbox({ bwrapPath: '/nonexistent/bwrap' }),
    });
    const run = task('hello');
    const result = await broken.run(run.request);
    expect(result.error).toMatchObject({
      type: 'sandbox_error',
      message: expect.stringContaining('bubblewrap (bwrap) was not found') as unknown,
    });
    expect(existsSync(join(run.request.workdir, 'mock-output.txt'))).toBe(false);
    expect(await broken.check()).toMatchObject({ ok: false });
    const missingBind = createClaudeExecutor({
      bin: MOCK_CLAUDE,
      searchPath: NODE_FIRST_PATH,
      sandbox,
      readOnlyPaths: [join(area.base, 'nope')],
    });
    expect((await missingBind.run(task('hello').request)).error).toMatchObject({ type: 'sandbox_error' });
  });

  it('fails its check, naming CLAUDE_BIN, when the CLI is missing', async () => {
    const missing = createClaudeExecutor({ bin: '/nonexistent/claude', sandbox });
    expect(await missing.check()).toEqual({
      ok: false,
      problem: 'CLAUDE_BIN="/nonexistent/claude" is not an executable file.',
    });
    expect((await missing.run(task('hello').request)).error).toMatchObject({ type: 'executor_error' });
  });
});

async function waitForProcess(marker: string): Promise<void> {
  const started = performance.now();
  while (processesWithArg(marker).length === 0) {
    if (performance.now() - started > 10_000) throw new Error(`no process with ${marker}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
