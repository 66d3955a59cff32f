import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createExecutorSandbox } from '../../src/fleet/executors/cli/cli-executor-options.ts';
import { createClaudeExecutor } from '../../src/fleet/executors/claude/claude-executor.ts';
import type { ExecutorRequest } from '../../src/fleet/executors/executor.ts';
import { checkSandbox } from '../../src/sandbox/check-sandbox.ts';
import { findAgentCli } from '../support/agent-clis.ts';
import { createSessionArea, executorRequest, processesWithArg, waitForEvent } from '../support/executor-fixture.ts';
import {
  type ScriptContext,
  type ScriptedTurn,
  startScriptedMessagesServer,
} from '../support/scripted-messages-server.ts';

// The real Claude Code CLI (scripts/ensure-agent-clis.sh), in the executor's sandbox, against a scripted Anthropic
// Messages API server: the model's side is scripted, everything else (the CLI, its tools, its sessions) is real.
const cli = findAgentCli('claude');
const sandbox = createExecutorSandbox();
const status = await checkSandbox(sandbox);
const skip = 'skip' in cli ? cli.skip : status.ok ? '' : status.error.message;
if (skip) console.warn(`Claude Code end-to-end tests skipped: ${skip}`);

// Prompts say what to do: "write <name>", "escape <host path> <canary>", "sleep <marker>", "fail <status>".
function script({ prompt, turn, cwd, toolResults }: ScriptContext): ScriptedTurn {
  const [verb, ...args] = prompt.trim().split(/\s+/);
  if (verb === 'write') {
    if (turn === 0)
      return {
        text: 'Writing it.',
        tool: 'Write',
        input: { file_path: join(cwd, String(args[0])), content: `${prompt}\n` },
      };
    return { text: `Wrote ${String(args[0])}.` };
  }
  if (verb === 'escape') {
    const [outside, canary] = args as [string, string];
    if (turn === 0) {
      return {
        tool: 'Bash',
        input: { command: `cat /etc/shadow; cat ${canary}; echo pwned > ${outside}.bash`, description: 'try' },
      };
    }
    if (turn === 1) return { tool: 'Write', input: { file_path: outside, content: 'pwned\n' } };
    if (turn === 2) return { tool: 'Write', input: { file_path: '/usr/local/agency-escape.txt', content: 'pwned\n' } };
    return {
      text: `Tried:\n${toolResults.map((result) => `${result.isError ? 'error' : 'ok'}: ${result.text}`).join('\n')}`,
    };
  }
  // Claude Code's Bash tool refuses a bare `sleep`; `timeout <marker> tail -f /dev/null` waits as long, and ends.
  if (verb === 'sleep') {
    if (turn === 0)
      return {
        text: 'Sleeping first.',
        tool: 'Bash',
        input: { command: `timeout ${String(args[0])} tail -f /dev/null`, description: 'wait' },
      };
    return { text: 'Slept.' };
  }
  if (verb === 'fail') {
    const status = Number(args[0]);
    const type = status === 429 ? 'rate_limit_error' : 'authentication_error';
    return { error: { status, type, message: status === 429 ? 'rate limited' : 'invalid x-api-key' } };
  }
  return { text: `What is "${prompt}"?` };
}

let server: Awaited<ReturnType<typeof startScriptedMessagesServer>>;
beforeAll(async () => {
  server = await startScriptedMessagesServer(script);
});
afterAll(() => server.close());

let area: ReturnType<typeof createSessionArea>;
beforeEach(() => {
  area = createSessionArea();
});
afterEach(() => area.cleanup());

const executor = createClaudeExecutor({ bin: 'bin' in cli ? cli.bin : undefined, sandbox, model: 'claude-sonnet-4-5' });

function task(prompt: string, sessionId: string, extra: Partial<ExecutorRequest> = {}) {
  const env = {
    HOME: area.home,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    CLAUDE_CODE_MAX_RETRIES: '0',
  };
  return executorRequest({ prompt, sessionId, workdir: area.workdir(sessionId), env, timeoutMs: 60_000, ...extra });
}

describe.skipIf(skip !== '')(`the Claude Code executor with the real CLI${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('checks its version inside the sandbox', async () => {
    expect(await executor.check()).toMatchObject({
      ok: true,
      version: expect.stringContaining('(Claude Code)') as unknown,
    });
  });

  it('runs a session, continues it twice with --resume, and its Write tool writes in the session dir', async () => {
    const sessionId = randomUUID();
    const before = server.conversation().length;
    for (const [i, name] of ['first.txt', 'second.txt', 'third.txt'].entries()) {
      const run = task(`write ${name}`, sessionId, { resume: i > 0 });
      const result = await executor.run(run.request);
      expect(result).toMatchObject({ exitCode: 0, output: `Wrote ${name}.` });
      expect(result.error).toBeUndefined();
      expect(result.usage?.input).toBeGreaterThan(0);
      expect(result.costUsd).toBeGreaterThan(0);
      expect(result.stdout).toContain(`"session_id":"${sessionId}"`);
      expect(run.events.map((event) => event.type)).toEqual([
        'started',
        'text',
        'tool.call',
        'tool.result',
        'text',
        'usage',
      ]);
      expect(run.events[2]).toMatchObject({ tool: 'Write', input: { file_path: join(run.request.workdir, name) } });
      expect(readFileSync(join(run.request.workdir, name), 'utf8')).toBe(`write ${name}\n`);
    }
    // The third run's model requests carry the whole session: the first two prompts and answers.
    const last = server.conversation().at(-1)?.body as { messages: unknown[] };
    expect(JSON.stringify(last.messages)).toContain('write first.txt');
    expect(JSON.stringify(last.messages)).toContain('Wrote second.txt.');
    expect(server.conversation().length - before).toBe(6);
    const projects = join(area.home, '.claude', 'projects');
    expect(readdirSync(join(projects, readdirSync(projects)[0] as string))).toContain(`${sessionId}.jsonl`);
  });

  it('keeps an escape attempt inside the sandbox: /etc/shadow, a host canary, writes outside the session dir', async () => {
    const canary = join(area.base, 'canary.txt');
    writeFileSync(canary, 'host secret');
    const outside = join(area.base, 'outside.txt');
    const run = task(`escape ${outside} ${canary}`, randomUUID());
    const result = await executor.run(run.request);
    expect(result.error).toBeUndefined();
    expect(result.output).toContain('cat: /etc/shadow: No such file or directory');
    expect(result.output).toContain(`cat: ${canary}: No such file or directory`);
    expect(result.output).toMatch(/error: .*(read-only file system|EROFS)/i);
    expect(result.output).not.toContain('host secret');
    for (const path of [outside, `${outside}.bash`, '/usr/local/agency-escape.txt'])
      expect(existsSync(path)).toBe(false);
  });

  it('cancel kills the CLI and the command its Bash tool runs within 11 s, keeping the partial output', async () => {
    const marker = `${2000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1000}`;
    const run = task(`sleep ${marker}`, randomUUID());
    const pending = executor.run(run.request);
    await waitForEvent(run.events, (event) => event.type === 'tool.call');
    for (let i = 0; processesWithArg(marker).length === 0 && i < 200; i++) await new Promise((r) => setTimeout(r, 25));
    expect(processesWithArg(marker)).not.toEqual([]);
    const cancelled = performance.now();
    run.abort();
    const result = await pending;
    expect(performance.now() - cancelled).toBeLessThan(11_000);
    expect(result).toMatchObject({ output: 'Sleeping first.', error: { type: 'cancelled' } });
    expect(processesWithArg(marker)).toEqual([]);
  });

  it.each([
    [429, 'rate_limit'],
    [401, 'invalid_api_key'],
  ] as const)('classifies an API error %i as %s', async (status, type) => {
    const result = await executor.run(task(`fail ${status}`, randomUUID()).request);
    expect(result).toMatchObject({ exitCode: 1, error: { type } });
  });
});
