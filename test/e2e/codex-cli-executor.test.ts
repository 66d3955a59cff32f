import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createExecutorSandbox } from '../../src/fleet/executors/cli/cli-executor-options.ts';
import { createCodexExecutor } from '../../src/fleet/executors/codex/codex-executor.ts';
import type { ExecutorRequest } from '../../src/fleet/executors/executor.ts';
import { checkSandbox } from '../../src/sandbox/check-sandbox.ts';
import { findAgentCli } from '../support/agent-clis.ts';
import { createSessionArea, executorRequest, processesWithArg, waitForEvent } from '../support/executor-fixture.ts';
import {
  type ResponsesContext,
  type ScriptedResponse,
  startScriptedResponsesServer,
} from '../support/scripted-responses-server.ts';

// The real Codex CLI (scripts/ensure-agent-clis.sh), in the executor's sandbox, against a scripted OpenAI Responses
// API server reached through the model_provider agency writes into Codex's config.toml.
const cli = findAgentCli('codex');
const sandbox = createExecutorSandbox();
const status = await checkSandbox(sandbox);
const skip = 'skip' in cli ? cli.skip : status.ok ? '' : status.error.message;
if (skip) console.warn(`Codex end-to-end tests skipped: ${skip}`);

// Prompts say what to do: "write <name>", "escape <host path> <canary>", "sleep <marker>", "fail 429".
function script({ prompt, turn, outputs }: ResponsesContext): ScriptedResponse {
  const [verb, ...args] = prompt.trim().split(/\s+/);
  if (verb === 'write') {
    if (turn === 0) return { call: 'exec_command', arguments: { cmd: `printf '%s' '${prompt}' > ${String(args[0])}` } };
    return { text: `Wrote ${String(args[0])}.` };
  }
  if (verb === 'escape') {
    const [outside, canary] = args as [string, string];
    const cmd = `cat /etc/shadow; cat ${canary}; echo pwned > ${outside}; echo pwned > /usr/local/agency-escape.txt`;
    if (turn === 0) return { call: 'exec_command', arguments: { cmd } };
    return { text: outputs.join('\n') };
  }
  if (verb === 'sleep') {
    return {
      call: 'exec_command',
      arguments: { cmd: `timeout ${String(args[0])} tail -f /dev/null`, yield_time_ms: 30_000 },
    };
  }
  if (verb === 'fail') return { error: { status: 429, code: 'rate_limit_exceeded', message: 'Rate limit reached' } };
  return { text: `What is "${prompt}"?` };
}

let server: Awaited<ReturnType<typeof startScriptedResponsesServer>>;
beforeAll(async () => {
  server = await startScriptedResponsesServer(script);
});
afterAll(() => server.close());

let area: ReturnType<typeof createSessionArea>;
beforeEach(() => {
  area = createSessionArea();
});
afterEach(() => area.cleanup());

const executor = () =>
  createCodexExecutor({
    bin: 'bin' in cli ? cli.bin : undefined,
    sandbox,
    model: 'gpt-5',
    provider: { baseUrl: server.url, requestMaxRetries: 0, streamMaxRetries: 0 },
  });

function task(prompt: string, sessionId: string, extra: Partial<ExecutorRequest> = {}) {
  const env = { HOME: area.home, OPENAI_API_KEY: 'sk-test' };
  return executorRequest({ prompt, sessionId, workdir: area.workdir(sessionId), env, timeoutMs: 60_000, ...extra });
}

describe.skipIf(skip !== '')(`the Codex executor with the real CLI${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('checks its version inside the sandbox, running the native binary', async () => {
    expect(await executor().check()).toMatchObject({
      ok: true,
      version: expect.stringMatching(/^codex-cli /) as unknown,
    });
  });

  it('runs a task end to end and continues its thread, writing in the session dir', async () => {
    const sessionId = randomUUID();
    const codex = executor();
    const first = task('write first.txt', sessionId);
    const result = await codex.run(first.request);
    expect(result).toMatchObject({ exitCode: 0, output: 'Wrote first.txt.' });
    expect(result.error).toBeUndefined();
    expect(result.usage?.input).toBeGreaterThan(0);
    expect(first.events.filter((event) => event.type !== 'warning').map((event) => event.type)).toEqual([
      'started',
      'tool.call',
      'tool.result',
      'text',
      'usage',
    ]);
    expect(readFileSync(join(first.request.workdir, 'first.txt'), 'utf8')).toBe('write first.txt');
    const thread = readFileSync(join(area.home, '.codex', 'agency-sessions', sessionId), 'utf8').trim();

    const second = task('write second.txt', sessionId, { resume: true });
    expect(await codex.run(second.request)).toMatchObject({ exitCode: 0, output: 'Wrote second.txt.' });
    expect(second.events[0]).toEqual({
      type: 'started',
      message: `Codex resumes session ${sessionId} (thread ${thread})`,
    });
    const last = server.turns().at(-1)?.body as { input: unknown[] };
    expect(JSON.stringify(last.input)).toContain('write first.txt');
    expect(existsSync(join(second.request.workdir, 'second.txt'))).toBe(true);
  });

  it('keeps an escape attempt inside the sandbox', async () => {
    const canary = join(area.base, 'canary.txt');
    writeFileSync(canary, 'host secret');
    const outside = join(area.base, 'outside.txt');
    const result = await executor().run(task(`escape ${outside} ${canary}`, randomUUID()).request);
    expect(result.error).toBeUndefined();
    expect(result.output).toContain('cat: /etc/shadow: No such file or directory');
    expect(result.output).toContain(`cat: ${canary}: No such file or directory`);
    expect(result.output).toContain('/usr/local/agency-escape.txt: Read-only file system');
    expect(result.output).not.toContain('host secret');
    for (const path of [outside, '/usr/local/agency-escape.txt']) expect(existsSync(path)).toBe(false);
  });

  it('cancel kills Codex and the command it runs, keeping what it printed', async () => {
    const marker = `${3000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1000}`;
    const run = task(`sleep ${marker}`, randomUUID());
    const pending = executor().run(run.request);
    await waitForEvent(run.events, (event) => event.type === 'tool.call');
    for (let i = 0; processesWithArg(marker).length === 0 && i < 200; i++) await new Promise((r) => setTimeout(r, 25));
    expect(processesWithArg(marker)).not.toEqual([]);
    const cancelled = performance.now();
    run.abort();
    const result = await pending;
    expect(performance.now() - cancelled).toBeLessThan(11_000);
    expect(result.error).toMatchObject({ type: 'cancelled' });
    expect(result.stdout).toContain('"type":"thread.started"');
    expect(processesWithArg(marker)).toEqual([]);
  });

  it('classifies a rate-limited turn as rate_limit', async () => {
    const result = await executor().run(task('fail 429', randomUUID()).request);
    expect(result).toMatchObject({ exitCode: 1, error: { type: 'rate_limit' } });
  });
});
