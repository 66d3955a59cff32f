import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltinExecutor } from '../../src/fleet/executors/builtin/builtin-executor.ts';
import type { ExecutorRequest } from '../../src/fleet/executors/executor.ts';
import { createBwrapSandbox } from '../../src/sandbox/bwrap-sandbox.ts';
import { checkSandbox } from '../../src/sandbox/check-sandbox.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { cli } from '../support/cli.ts';
import { createSessionArea, executorRequest, waitForEvent } from '../support/executor-fixture.ts';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';

// The built-in executor runs the real `agency run` against a local OpenAI-compatible model server.
const sandbox = createBwrapSandbox();
const status = await checkSandbox(sandbox);
const skip = status.ok ? '' : status.error.message;
if (skip) console.warn(`built-in executor tests skipped: ${skip}`);

let local: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
beforeAll(async () => {
  local = await startOpenAICompatibleServer();
});
afterAll(() => local.server.close());

let area: ReturnType<typeof createSessionArea>;
beforeEach(() => {
  area = createSessionArea();
});
afterEach(() => area.cleanup());

const model = () => `openai-compatible:${local.url}#local-model`;
function task(prompt: string, sessionId: string, extra: Partial<ExecutorRequest> = {}) {
  return executorRequest({ prompt, sessionId, workdir: area.workdir(sessionId), env: { HOME: area.home }, ...extra });
}

describe.skipIf(skip !== '')(`the built-in executor${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('checks the runner and its sandbox', async () => {
    expect(await createBuiltinExecutor({ sandbox }).check()).toMatchObject({ ok: true, version: 'agency 0.1.0' });
  });

  it('runs a governed task in turn-1/ and continues the session in turn-2/ with the earlier answer', async () => {
    const executor = createBuiltinExecutor({ model: model(), approvals: 'auto', sandbox });
    const sessionId = randomUUID();
    const first = task('Summarise the input into artifacts/summary.md.', sessionId);
    const result = await executor.run(first.request);
    expect(result).toMatchObject({ exitCode: 0, output: expect.any(String) as unknown });
    expect(result.error).toBeUndefined();
    expect(result.usage?.input).toBeGreaterThan(0);
    const root = join(first.request.workdir, 'turn-1');
    expect(readFileSync(join(root, 'task', 'brief.md'), 'utf8')).toBe(
      'Summarise the input into artifacts/summary.md.\n',
    );
    expect(existsSync(join(root, 'progress', 'artifacts', 'summary.md'))).toBe(true);
    expect(first.events[0]).toMatchObject({ type: 'started' });
    expect(first.events).toContainEqual(expect.objectContaining({ type: 'tool.call', tool: 'fs_write' }));
    expect(first.events).toContainEqual(expect.objectContaining({ type: 'tool.result', tool: 'fs_write', ok: true }));
    expect(first.events.at(-1)).toEqual({ type: 'text', text: result.output });

    const second = task('Now shorten it.', sessionId, { resume: true });
    expect((await executor.run(second.request)).error).toBeUndefined();
    const brief = readFileSync(join(second.request.workdir, 'turn-2', 'task', 'brief.md'), 'utf8');
    expect(brief).toBe(`Now shorten it.\n\n## Earlier in this session\n\n### Turn 1\n\n${result.output}\n\n`);
    expect(existsSync(join(second.request.workdir, 'turn-2', 'task', 'earlier', 'turn-1', 'summary.md'))).toBe(true);
  });

  it('waits for a file approval like a CLI run, saying how to give it, and goes on once approved', async () => {
    const executor = createBuiltinExecutor({ model: model(), sandbox });
    const run = task('Summarise the input.', randomUUID());
    const pending = executor.run(run.request);
    const asked = await waitForEvent(
      run.events,
      (event) => event.type === 'warning' && event.message.includes('approve'),
    );
    const command = /agency approve (\S+) (\S+)$/.exec('message' in asked ? asked.message : '');
    expect(command?.[1]).toBe(join(run.request.workdir, 'turn-1'));
    expect((await cli(['approve', String(command?.[1]), String(command?.[2]), '--by', 'ops'])).code).toBe(0);
    expect((await pending).error).toBeUndefined();
  });

  it('cancel stops the run within 11 s, and the run journals its end', async () => {
    const executor = createBuiltinExecutor({ model: model(), sandbox });
    const run = task('Summarise the input.', randomUUID());
    const pending = executor.run(run.request);
    await waitForEvent(run.events, (event) => event.type === 'warning' && event.message.includes('approve'));
    const cancelled = performance.now();
    run.abort();
    const result = await pending;
    expect(performance.now() - cancelled).toBeLessThan(11_000);
    expect(result.error).toMatchObject({ type: 'cancelled' });
    const { frames } = await readJournal(join(run.request.workdir, 'turn-1', 'progress', 'events.ndjson'));
    expect(frames.at(-1)).toMatchObject({ type: 'finish', data: { reason: 'cancelled' } });
  });

  it('fails a task without an API key as invalid_api_key, and one without a sandbox as sandbox_error', async () => {
    const keyless = createBuiltinExecutor({ model: 'anthropic:claude-sonnet-4-5', approvals: 'auto', sandbox });
    expect(await keyless.run(task('hello', randomUUID()).request)).toMatchObject({
      exitCode: 2,
      error: { type: 'invalid_api_key', message: expect.stringContaining('needs an API key') as unknown },
    });
    const broken = createBuiltinExecutor({
      model: model(),
      sandbox: createBwrapSandbox({ bwrapPath: '/nonexistent/bwrap' }),
    });
    const run = task('hello', randomUUID());
    expect((await broken.run(run.request)).error).toMatchObject({ type: 'sandbox_error' });
    expect(existsSync(join(run.request.workdir, 'turn-1'))).toBe(false);
    expect(await broken.check()).toMatchObject({ ok: false });
  });
});
