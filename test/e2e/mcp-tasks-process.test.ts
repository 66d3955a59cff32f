// Governed tasks over MCP from real processes, with the official SDK client and a model behind a local
// OpenAI-compatible server: `agency mcp` started as a child over stdio, and `agency serve --mcp-port` over Streamable
// HTTP. Each time a task is started, seen waiting for its plan approval, approved over MCP, followed to its end, and
// its deliverable read, as an MCP client of an operator would.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskAction, TaskDetail } from '../../src/api/schemas.ts';
import type { FollowResult } from '../../src/server/mcp/follow-task.ts';
import { agency } from '../support/cli.ts';
import { callJson, httpClient, resourceText } from '../support/mcp-task-fixture.ts';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';
import { startServeProcess } from '../support/serve-process.ts';

const TOKEN = 'mcp-process-token-0123456789abcdef';
let model: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
beforeAll(async () => {
  model = await startOpenAICompatibleServer();
});
afterAll(() => model?.server.close());

const modelSpec = () => `openai-compatible:${model.url}#local-model`;
const brief = '# Summarise the notes\n\nWrite a one-line summary of task/input.txt to artifacts/summary.md.\n';
const files = [{ name: 'input.txt', content: 'Agency runs governed agents. They plan, ask, act and verify.\n' }];

/** The acceptance walk: start, wait for approval, approve, follow to the end, read the deliverable. */
async function governedTask(client: Client, dataRoot: string, approver: string): Promise<string> {
  const started = await callJson<TaskAction>(client, 'start_task', { brief, files });
  const messages: string[] = [];
  const waiting = await callJson<FollowResult>(
    client,
    'follow_task',
    { task_id: started.task_id },
    { onprogress: (progress) => messages.push(progress.message ?? '') },
  );
  expect(waiting).toMatchObject({ ended_because: 'waiting_approval', task: { status: 'waiting_approval' } });
  expect(messages).toContainEqual(expect.stringMatching(/^plan\.proposed/));
  const [pending] = waiting.pending_approvals;
  expect(pending).toMatchObject({ request: { type: 'plan' }, plan: { allowed_tools: ['fs_write'] } });

  const decision = await callJson(client, 'decide_approval', {
    request_id: pending!.request.id,
    task_id: started.task_id,
    decision: 'approved',
    reason: 'one file, as asked',
  });
  expect(decision).toMatchObject({ decision: 'approved', approved_by: approver });
  const onDisk = JSON.parse(
    await readFile(
      join(dataRoot, 'tasks', started.task_id, 'progress/approvals/decisions', `${pending!.request.id}.json`),
      'utf8',
    ),
  );
  expect(onDisk).toMatchObject({ decision: 'approved', approved_by: approver });

  const finished = await callJson<FollowResult>(client, 'follow_task', {
    task_id: started.task_id,
    after: waiting.last_seq,
  });
  expect(finished).toMatchObject({ ended_because: 'finished', task: { status: 'completed' } });
  const detail = await callJson<TaskDetail>(client, 'get_task', { task_id: started.task_id });
  expect(detail.deliverables.map((file) => file.path)).toEqual(['progress/artifacts/summary.md']);
  const read = await client.callTool({
    name: 'read_deliverable',
    arguments: { task_id: started.task_id, path: detail.deliverables[0]!.path },
  });
  expect(read.content).toEqual([{ type: 'text', text: 'Agency runs governed agents.\n' }]);
  const resource = await client.readResource({ uri: `agency://tasks/${started.task_id}/deliverables/summary.md` });
  expect(resourceText(resource)).toBe('Agency runs governed agents.\n');
  return started.task_id;
}

describe('governed tasks over MCP, from real processes', () => {
  it('over stdio: agency mcp, started by the SDK client as a child process', async () => {
    const data = await mkdtemp(join(tmpdir(), 'agency-mcp-'));
    const env = Object.fromEntries(
      Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [agency, 'mcp', '--root', data, '--model', modelSpec(), '--as', 'olivia'],
      env,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'sdk-stdio-client', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'agency' });
      expect(client.getInstructions()).toContain('start_task');
      await governedTask(client, data, 'olivia');
      expect(stderr).toContain('decisions are signed as "olivia"');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('over Streamable HTTP: agency serve --mcp-port, with the API token, beside the HTTP API', async () => {
    const data = await mkdtemp(join(tmpdir(), 'agency-mcp-'));
    const server = await startServeProcess(['--root', data, '--model', modelSpec(), '--mcp-port', '0'], TOKEN);
    try {
      const url = await waitFor(() => /MCP: (http:\/\/\S+)/.exec(server.output())?.[1]);
      const refused = await fetch(url, {
        method: 'POST',
        headers: { authorization: 'Bearer not-the-token', 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(refused.status).toBe(401);
      const client = await httpClient(url, TOKEN);
      try {
        const taskId = await governedTask(client, data, 'operator');
        // One service: the HTTP API sees the task the MCP client ran.
        const viaApi = (await (await server.api(`/agent/tasks/${taskId}`)).json()) as TaskDetail;
        expect(viaApi).toMatchObject({ status: 'completed', approvals: [{ decision: { approved_by: 'operator' } }] });
      } finally {
        await client.close();
      }
    } finally {
      expect(await server.kill('SIGTERM')).toBe(0);
    }
  }, 60_000);
});

async function waitFor<T>(check: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
