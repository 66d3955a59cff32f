// A credential the worker hands its executor, and a secret a director passes in a task's env, are printed by the
// executor in every way it can (output, stdout, stderr, events, base64): none of them reaches the worker's history,
// its agent.log, or any answer of its API, in any spelling the canary scan knows. The executor did get the values.
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canarySpellings, filesUnder, findCanary } from '../support/canary-scan.ts';
import { startWorkerProcess, waitForState, workerRoot } from '../support/worker-process.ts';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

describe('agency worker keeps secrets out of everything it writes and answers', () => {
  it('never shows a credential or a task env secret in history, agent.log or API answers', async () => {
    const credential = `sk-ant-oat01-canary-${randomBytes(16).toString('hex')}`;
    const taskSecret = `ghp_canary${randomBytes(16).toString('hex')}`;
    const root = await workerRoot(
      'w1',
      'port: 9000\nexecutor: claude\ncredentials:\n  claude-token: CLAUDE_CODE_OAUTH_TOKEN\n',
      { 'claude-token': { value: credential } },
    );
    const worker = await startWorkerProcess('w1', root);
    const answers: string[] = [];
    const get = async (path: string, init?: { method?: string; json?: unknown }) => {
      const text = await (await worker.api(path, init)).text();
      answers.push(`${path}\n${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    try {
      const first = await get('/task', { json: { prompt: 'echo-env CLAUDE_CODE_OAUTH_TOKEN' } });
      const firstTask = await waitForState(worker, first.task_id as string, ['idle']);
      // The executor had the credential: its output carries the value's hash (the value itself is redacted).
      expect(firstTask.output).toContain(`sha256=${sha256(credential)}`);
      await get(`/task/${first.task_id}/end`, { method: 'POST' });

      const second = await get('/task', {
        json: { prompt: 'echo-env DEPLOY_TOKEN', env: { DEPLOY_TOKEN: taskSecret } },
      });
      expect((await waitForState(worker, second.task_id as string, ['idle'])).output).toContain(
        `sha256=${sha256(taskSecret)}`,
      );
      await get(`/task/${second.task_id}/continue`, { json: { prompt: `echo-env DEPLOY_TOKEN ${taskSecret}` } });
      await waitForState(worker, second.task_id as string, ['idle']);

      for (const id of [first.task_id, second.task_id]) {
        await get(`/task/${id}`);
        await get(`/task/${id}/debug`);
        await get(`/history/${id}`);
      }
      await get('/history');
      await get('/tasks');
      await get('/status');
      const debug = await get(`/task/${first.task_id}/debug`);
      expect(debug.stderr).toContain('env CLAUDE_CODE_OAUTH_TOKEN=[REDACTED:anthropic]');
    } finally {
      await worker.kill('SIGTERM');
    }
    const files = filesUnder(join(root, 'agents/w1'), ['workspaces', 'home']);
    expect(files.map((file) => file.slice(root.length))).toEqual(
      expect.arrayContaining(['/agents/w1/agent.log', expect.stringMatching(/^\/agents\/w1\/history\/task-.*\.json$/)]),
    );
    for (const secret of [credential, taskSecret]) {
      expect(findCanary(files, secret, root)).toEqual([]);
      const spellings = canarySpellings(secret);
      for (const answer of answers)
        for (const [name, text] of spellings)
          expect(answer.includes(text), `${name} in ${answer.slice(0, 80)}`).toBe(false);
    }
    expect(worker.output()).not.toContain(credential.slice(-20));
  });
});
