// The real Codex CLI behind a real `agency worker` process, driven over HTTP, against a scripted OpenAI Responses API
// server reached through the config's OPENAI_BASE_URL: one task and its continuation (the Claude Code worker's full
// run, with cancel and an escape attempt, is fleet-worker-claude.test.ts).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createExecutorSandbox } from '../../src/fleet/executors/cli/cli-executor-options.ts';
import { checkSandbox } from '../../src/sandbox/check-sandbox.ts';
import { findAgentCli } from '../support/agent-clis.ts';
import { taskText } from '../support/scripted-executor.ts';
import { startScriptedResponsesServer } from '../support/scripted-responses-server.ts';
import { startWorkerProcess, waitForState, workerRoot } from '../support/worker-process.ts';

const codex = findAgentCli('codex');
const sandbox = await checkSandbox(createExecutorSandbox());
const skip = 'skip' in codex ? codex.skip : sandbox.ok ? '' : sandbox.error.message;
const codexBin = 'bin' in codex ? codex.bin : '';
if (skip) console.warn(`agency worker with the real Codex skipped: ${skip}`);

type Created = { task_id: string; session_id: string; status: string };
type Task = Record<string, unknown> & { output: string; token_usage: { input: number; output: number } };

describe.skipIf(skip !== '')(`agency worker with the real Codex${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('runs a task and continues its thread over HTTP', async () => {
    const openaiKey = `sk-proj-${randomBytes(16).toString('hex')}`;
    const responses = await startScriptedResponsesServer(({ prompt, turn }) => {
      const [verb, name] = taskText(prompt).split(/\s+/);
      if (verb !== 'write') return { text: `What is "${prompt}"?` };
      if (turn === 0)
        return { call: 'exec_command', arguments: { cmd: `printf '%s' '${String(name)}' > ${String(name)}` } };
      return { text: `Wrote ${String(name)}.` };
    });
    const codexRoot = await workerRoot(
      'codex-1',
      `port: 9000\nexecutor: codex\nmodel: gpt-5\ntimeout: 2m\ncredentials:\n  openai-key: OPENAI_API_KEY\nenv:\n  OPENAI_BASE_URL: ${responses.url}\n`,
      { 'openai-key': { value: openaiKey } },
    );
    const codexWorker = await startWorkerProcess('codex-1', codexRoot, {
      scripted: false,
      env: { CODEX_BIN: codexBin },
    });
    try {
      expect(await codexWorker.json('/status')).toMatchObject({
        config: { executor: 'codex', executor_version: expect.stringMatching(/^codex-cli /) as unknown },
      });
      const created = await codexWorker.json<Created>('/task', { json: { prompt: 'write one.txt' } });
      expect(await waitForState(codexWorker, created.task_id, ['idle', 'failed'], 60_000)).toMatchObject({
        state: 'idle',
        output: 'Wrote one.txt.',
        session_id: created.session_id,
      });
      await codexWorker.json(`/task/${created.task_id}/continue`, { json: { prompt: 'write two.txt' } });
      const second = (await waitForState(codexWorker, created.task_id, ['idle', 'failed'], 60_000)) as Task;
      expect(second).toMatchObject({ state: 'idle', output: 'Wrote two.txt.', turns: 2 });
      expect(second.token_usage.input).toBeGreaterThan(0);
      // `codex exec resume` carried the thread: the second turn's requests hold the first prompt and answer.
      const last = JSON.stringify(responses.turns().at(-1)?.body);
      for (const earlier of ['write one.txt', 'Wrote one.txt.', 'write two.txt']) expect(last).toContain(earlier);
      expect(new Set(responses.requests.map((request) => request.apiKey))).toEqual(new Set([openaiKey]));
      const sessionDir = join(codexRoot, 'agents/codex-1/workspaces', created.session_id);
      expect(readFileSync(join(sessionDir, 'one.txt'), 'utf8')).toBe('one.txt');
      expect(readFileSync(join(sessionDir, 'two.txt'), 'utf8')).toBe('two.txt');
      const record = await codexWorker.json<{ log: Array<{ message: string }> }>(`/history/${created.task_id}`);
      expect(record.log.map((line) => line.message)).toEqual(
        expect.arrayContaining([
          `Codex starts session ${created.session_id}`,
          expect.stringMatching(/^Codex resumes session \S+ \(thread [0-9a-f-]{36}\)$/),
        ]),
      );
      expect(await codexWorker.json(`/task/${created.task_id}/end`, { method: 'POST' })).toMatchObject({
        state: 'completed',
      });
      const elsewhere = await codexWorker.api('/task', {
        json: { prompt: 'write three.txt', env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } },
      });
      expect([elsewhere.status, ((await elsewhere.json()) as { details: unknown }).details]).toEqual([
        400,
        expect.objectContaining({ field: 'env.OPENAI_BASE_URL' }),
      ]);
    } finally {
      await codexWorker.kill('SIGTERM');
      await responses.close();
      await rm(codexRoot, { recursive: true, force: true });
    }
  }, 90_000);
});
