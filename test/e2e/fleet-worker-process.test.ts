// The real `agency worker` process, with its own data root and port: a session run, continued and ended over HTTP;
// history across a restart; a kill -9 mid-task and the restart after it; signals; start-up refusals.
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agency } from '../support/cli.ts';
import { spawn } from 'node:child_process';
import { startWorkerProcess, waitForExecutor, waitForState, workerRoot } from '../support/worker-process.ts';

type Created = { task_id: string; session_id: string; status: string };
const CONFIG = 'port: 9000\nexecutor: claude\nmodel: sonnet\n';

function runToEnd(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [agency, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, output })),
  );
}

describe('agency worker, the process', () => {
  it('runs a session over HTTP, keeps its history across a shutdown and a restart', async () => {
    const root = await workerRoot('w1', CONFIG);
    const worker = await startWorkerProcess('w1', root);
    expect(await worker.json('/status')).toMatchObject({
      type: 'agent',
      name: 'w1',
      state: 'idle',
      // Its own pid, which `agency kill` signals.
      config: { executor: 'claude', executor_version: 'scripted 1.0', model: 'sonnet', pid: worker.child.pid },
    });
    const created = await worker.json<Created>('/task', { json: { prompt: 'write first.txt' } });
    expect(created.status).toBe('working');
    expect(await waitForState(worker, created.task_id, ['idle'])).toMatchObject({
      output: 'files: first.txt; resume=false',
    });
    await worker.json(`/task/${created.task_id}/continue`, { json: { prompt: 'write second.txt' } });
    expect(await waitForState(worker, created.task_id, ['idle'])).toMatchObject({
      output: 'files: first.txt,second.txt; resume=true',
      turns: 2,
      token_usage: { input: 200, output: 40 },
    });
    expect(await worker.json(`/task/${created.task_id}/end`, { method: 'POST' })).toEqual({
      task_id: created.task_id,
      state: 'completed',
      output: 'files: first.txt,second.txt; resume=true',
    });
    const sessionDir = join(root, 'agents/w1/workspaces', created.session_id);
    expect((await readdir(sessionDir)).sort()).toEqual(['first.txt', 'second.txt']);

    const shutdown = await worker.api('/shutdown', { json: {} });
    expect(shutdown.status).toBe(202);
    expect(await worker.exited).toBe(0);

    const again = await startWorkerProcess('w1', root);
    try {
      const page = await again.json<{ items: Array<{ task_id: string; state: string }>; total: number }>('/history');
      expect(page).toMatchObject({
        total: 1,
        page: 1,
        limit: 20,
        items: [{ task_id: created.task_id, state: 'completed' }],
      });
      const record = await again.json<{ log: Array<{ message: string }>; stdout: string }>(
        `/history/${created.task_id}`,
      );
      expect(record.log.map((line) => line.message)).toEqual([
        'turn 1: write first.txt',
        expect.stringMatching(/^scripted executor: write \(pid \d+\)$/),
        'turn 2: write second.txt',
        expect.stringMatching(/^scripted executor: write \(pid \d+\)$/),
      ]);
      expect(record.stdout).toContain('"type":"result"');
      const log = await readFile(join(root, 'agents/w1/agent.log'), 'utf8');
      expect(log).toContain('"msg":"ready: executor claude scripted 1.0"');
      const components = log
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { component?: string }).component);
      expect(new Set(components)).toEqual(new Set(['worker']));
    } finally {
      await again.kill('SIGTERM');
    }
  });

  it('after a kill -9 mid-task, the restarted worker reports the task failed with worker_lost and starts clean', async () => {
    const root = await workerRoot('w1', CONFIG);
    const worker = await startWorkerProcess('w1', root);
    const created = await worker.json<Created>('/task', { json: { prompt: 'hang' } });
    await waitForState(worker, created.task_id, ['working']);
    expect(await worker.kill('SIGKILL')).toBe(null);

    const restarted = await startWorkerProcess('w1', root);
    try {
      const lost = await restarted.json(`/task/${created.task_id}`);
      expect(lost).toMatchObject({
        state: 'failed',
        error: { type: 'worker_lost', message: expect.stringContaining('while the task was working') },
        completed_at: expect.any(String),
      });
      const status = await restarted.json<{ state: string; log: Array<{ message: string }> }>('/status');
      expect(status.state).toBe('idle');
      expect(status.log.map((line) => line.message)).toContain(
        `task ${created.task_id} was lost with the previous worker process`,
      );
      const next = await restarted.json<Created>('/task', { json: { prompt: 'after the crash' } });
      expect(await waitForState(restarted, next.task_id, ['idle'])).toMatchObject({ output: 'done: after the crash' });
    } finally {
      await restarted.kill('SIGTERM');
    }
    expect((await readdir(join(root, 'agents/w1/history'))).filter((name) => !name.endsWith('.json'))).toEqual([]);
    // A third start has nothing left to mark.
    const third = await startWorkerProcess('w1', root);
    const history = await third.json<{ items: Array<{ state: string }> }>('/history');
    expect(history.items.map((item) => item.state).sort()).toEqual(['failed', 'idle']);
    await third.kill('SIGTERM');
  });

  it('cancels a running task on SIGTERM, records it, and exits 0', async () => {
    const root = await workerRoot('w1', CONFIG);
    const worker = await startWorkerProcess('w1', root);
    const created = await worker.json<Created>('/task', { json: { prompt: 'hang' } });
    await waitForExecutor(worker, created.task_id);
    expect(await worker.kill('SIGTERM')).toBe(0);
    const record = JSON.parse(await readFile(join(root, 'agents/w1/history', `${created.task_id}.json`), 'utf8'));
    expect(record).toMatchObject({ state: 'cancelled', output: 'partial', error: { type: 'cancelled' } });
  });

  it('cancels over HTTP within the grace period, with the partial output', async () => {
    const root = await workerRoot('w1', CONFIG);
    const worker = await startWorkerProcess('w1', root);
    try {
      const created = await worker.json<Created>('/task', { json: { prompt: 'sleep 60000' } });
      await waitForExecutor(worker, created.task_id);
      const started = Date.now();
      expect(await worker.json(`/task/${created.task_id}/cancel`, { method: 'POST' })).toMatchObject({
        state: 'cancelling',
      });
      expect(await waitForState(worker, created.task_id, ['cancelled'])).toMatchObject({
        output: 'partial',
        exit_code: 143,
      });
      expect(Date.now() - started).toBeLessThan(11_000);
    } finally {
      await worker.kill('SIGTERM');
    }
  });

  it('bound beyond loopback, requires a token: generated 0600 in the instance directory, printed once', async () => {
    const root = await workerRoot('w1', 'port: 9000\nexecutor: claude\nbind: 0.0.0.0\n');
    const worker = await startWorkerProcess('w1', root, { env: { AGENCY_TOKEN: '' } });
    try {
      const token = /^Token \(shown once; kept in (\S+)\): (\S+)$/m.exec(worker.output());
      const [, file, value] = token ?? [];
      expect(file).toBe(join(root, 'agents/w1/token'));
      expect((await stat(file!)).mode & 0o777).toBe(0o600);
      expect((await worker.api('/status')).status).toBe(401);
      expect((await worker.api('/status', { token: value! })).status).toBe(200);
      const log = await readFile(join(root, 'agents/w1/agent.log'), 'utf8');
      expect(log).not.toContain(value!);
    } finally {
      await worker.kill('SIGTERM');
    }
  });

  it('refuses to start on a bad config, naming the file, line and field (exit 2)', async () => {
    const root = await workerRoot('w1', 'port: 9000\nexecutor: claude\ntimeout: later\n');
    const result = await runToEnd(['worker', 'w1', '--root', root]);
    expect(result.code).toBe(2);
    expect(result.output).toBe(
      `agency: ${join(root, 'agents/w1/config.yaml')}:3:1: timeout: must be a duration such as 90s, 30m or 1h30m, between 1s and 24h (got "later")\n`,
    );
  });

  it('refuses to start on a credential file others can read, naming it and the chmod fix, before binding', async () => {
    const root = await workerRoot('w1', `${CONFIG}credentials:\n  claude-token: CLAUDE_CODE_OAUTH_TOKEN\n`, {
      'claude-token': { value: 'sk-ant-oat01-loose-0123456789abcdef', mode: 0o644 },
    });
    const result = await runToEnd(['worker', 'w1', '--root', root]);
    const file = join(root, 'credentials/claude-token');
    expect(result.code).toBe(2);
    expect(result.output).toContain(`has mode 0644 and is readable by other users. Run: chmod 600 ${file}`);
    expect(result.output).not.toContain('agency worker w1: http');
    expect(result.output).not.toContain('loose-0123456789');
  });

  it('exits 1 when its executor fails its check', async () => {
    const root = await workerRoot('w1', CONFIG);
    const result = await runToEnd(['worker', 'w1', '--root', root, '--port', '0'], {
      AGENCY_WORKER_TEST_EXECUTOR: join(import.meta.dirname, '../support/scripted-executor.ts'),
      SCRIPTED_EXECUTOR_CHECK: 'fail',
    });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/agency worker: executor claude failed its check: scripted: told to fail\n/);
    expect(existsSync(join(root, 'agents/w1/history'))).toBe(true);
  });
});
