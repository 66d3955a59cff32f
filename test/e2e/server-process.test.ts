// The real `agency serve` process: a task started with curl-like requests, approved over HTTP and finished, whose
// task root has the shape of a CLI run's; and runs in flight across a kill -9 and a clean restart of the server.
import { readdir, readFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.ts';
import { makeTaskFolder } from '../support/governed-fixture.ts';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';

const TOKEN = 'process-token-0123456789abcdef';
let model: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
beforeAll(async () => {
  model = await startOpenAICompatibleServer();
});
afterAll(() => model?.server.close());

const modelSpec = () => `openai-compatible:${model.url}#local-model`;
const brief = '# Summarise the notes\n\nWrite a one-line summary of task/input.txt to artifacts/summary.md.\n';
const files = [{ name: 'input.txt', content: 'Agency runs governed agents. They plan, ask, act and verify.\n' }];

async function until<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function pendingRequest(server: ServeProcess, taskId: string): Promise<string> {
  return until(async () => {
    const inbox = (await (await server.api('/agent/approvals')).json()) as {
      items: Array<{ task_id: string; request: { id: string } }>;
    };
    return inbox.items.find((item) => item.task_id === taskId)?.request.id;
  });
}

async function statusOf(server: ServeProcess, taskId: string): Promise<string> {
  return ((await (await server.api(`/agent/tasks/${taskId}`)).json()) as { status: string }).status;
}

async function shape(root: string): Promise<string[]> {
  const names: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      // Ids differ between runs; the layout is what counts.
      names.push(relative(root, path).replace(/req_[0-9A-Z]{26}/g, 'req_…'));
      if (entry.isDirectory()) await walk(path);
    }
  };
  await walk(join(root, 'progress'));
  return names.filter((name) => !name.endsWith('.lock')).sort();
}

describe('agency serve, the process', () => {
  it('runs a task started over HTTP and approved over HTTP, with the paper trail of a CLI run', async () => {
    const data = await mkdtemp(join(tmpdir(), 'agency-serve-'));
    const server = await startServeProcess(['--root', data, '--model', modelSpec()], TOKEN);
    try {
      const started = (await (
        await server.api('/agent/tasks/do/async', { method: 'POST', json: { brief, files } })
      ).json()) as {
        task_id: string;
      };
      const request = await pendingRequest(server, started.task_id);
      const decided = await server.api(`/agent/approvals/${request}/decision`, {
        method: 'POST',
        json: { decision: 'approved' },
      });
      expect(decided.status).toBe(200);
      await until(async () => ((await statusOf(server, started.task_id)) === 'completed' ? true : undefined));

      // The same task through the CLI, approved with agency approve.
      const cliRoot = await makeTaskFolder(brief);
      const cliLog = join(data, 'cli-run.log');
      const run = cli(['run', cliRoot, '--model', modelSpec(), '--approvals', 'file', '--log-file', cliLog]);
      const cliRequest = await until(async () => {
        const { stdout } = await cli(['approvals', cliRoot, '--json']);
        return (JSON.parse(stdout) as Array<{ id: string }>)[0]?.id;
      });
      await cli(['approve', cliRoot, cliRequest, '--by', 'ana']);
      const ran = await run;
      expect(ran.code).toBe(0);
      // The structured logs carry their component: the server's and its runner's, and the CLI run's (off stdout).
      const lines = async (file: string) =>
        (await readFile(file, 'utf8'))
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { component?: string; task_id?: string; type?: string });
      const serverLines = await lines(join(data, 'server', 'server.log'));
      expect(new Set(serverLines.map((line) => line.component))).toEqual(new Set(['server', 'runner']));
      expect(serverLines).toContainEqual(
        expect.objectContaining({ component: 'runner', task_id: started.task_id, type: 'finish' }),
      );
      const cliLines = await lines(cliLog);
      expect(cliLines.length).toBeGreaterThan(5);
      expect(cliLines.every((line) => line.component === 'runner')).toBe(true);
      expect(cliLines.at(-1)?.type).toBe('finish');
      expect(ran.stdout).not.toContain('"component"');
      const served = join(data, 'tasks', started.task_id);
      expect(await shape(served)).toEqual(await shape(cliRoot));
      // And the CLI reads the served task as its own.
      expect((await cli(['status', served])).stdout).toContain('completed');
    } finally {
      await server.kill('SIGTERM');
    }
  }, 60_000);

  it('resumes a run in flight after kill -9 of the server, and after a clean stop', async () => {
    const data = await mkdtemp(join(tmpdir(), 'agency-serve-'));
    let server = await startServeProcess(['--root', data, '--model', modelSpec()], TOKEN);
    const started = (await (
      await server.api('/agent/tasks/do/async', { method: 'POST', json: { brief, files } })
    ).json()) as {
      task_id: string;
    };
    const request = await pendingRequest(server, started.task_id);
    await server.kill('SIGKILL');

    // Killed while waiting: the next server resumes the run, which waits on the same request.
    server = await startServeProcess(['--root', data, '--model', modelSpec()], TOKEN);
    expect(await pendingRequest(server, started.task_id)).toBe(request);
    await until(async () => ((await statusOf(server, started.task_id)) === 'waiting_approval' ? true : undefined));

    // A clean stop stops the run at its boundary; the next start resumes it again.
    expect(await server.kill('SIGTERM')).toBe(0);
    expect(server.output()).toContain('resume on the next start');
    server = await startServeProcess(['--root', data, '--model', modelSpec()], TOKEN);
    try {
      expect(await pendingRequest(server, started.task_id)).toBe(request);
      await server.api(`/agent/approvals/${request}/decision`, { method: 'POST', json: { decision: 'approved' } });
      await until(async () => ((await statusOf(server, started.task_id)) === 'completed' ? true : undefined));
      const events = await (await server.api(`/agent/tasks/${started.task_id}/events`)).text();
      const types = events
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { type: string }).type);
      expect(types.filter((type) => type === 'run.resumed').length).toBe(2);
      expect(types.at(-1)).toBe('finish');
    } finally {
      await server.kill('SIGTERM');
    }
    // Three starts of agency serve and a run: seconds alone, far longer beside the whole suite on two cores.
  }, 180_000);
});
