import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type Tool } from '../tools/define-tool.ts';
import { runToolCall } from '../tools/run-tool-call.ts';
import { connectMcp } from './connect-mcp.ts';
import type { McpConnection, McpStatus } from './mcp-connection.ts';
import { createMcpServer } from './mcp-server.ts';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  effects: 'read',
  execute: ({ a, b }) => a + b,
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function serve(tools: readonly Tool[], port = 0) {
  const server = createMcpServer({ name: 'agency-http', tools });
  const http = await server.listenHttp({ port });
  cleanups.push(() => server.close());
  return { server, http };
}

async function connect(url: string, options: Partial<Parameters<typeof connectMcp>[0]> = {}) {
  const connection = await connectMcp({ name: 'remote', transport: { type: 'http', url }, ...options });
  cleanups.push(() => connection.close());
  return connection;
}

const run = (connection: McpConnection, tool: string, input: unknown, timeoutMs?: number) =>
  runToolCall(
    connection.tools().find((candidate) => candidate.name === `remote__${tool}`),
    { toolCallId: 'c1', toolName: `remote__${tool}`, input },
    timeoutMs === undefined ? {} : { timeoutMs },
  );

function nextStatus(connection: McpConnection, state: McpStatus['state']): Promise<McpStatus> {
  return new Promise((resolve) => {
    const stop = connection.onStatusChange((status) => {
      if (status.state !== state) return;
      stop();
      resolve(status);
    });
  });
}

describe('connectMcp over Streamable HTTP', () => {
  it('calls tools on an agency MCP server', async () => {
    const { http } = await serve([add]);
    const remote = await connect(http.url);
    expect(remote.tools().map((tool) => tool.name)).toEqual(['remote__add']);
    expect((await run(remote, 'add', { a: 2, b: 3 })).modelOutput).toEqual({ type: 'text', value: '5' });
  });

  it('refreshes its tools on notifications/tools/list_changed and tells listeners', async () => {
    const { server, http } = await serve([add]);
    const remote = await connect(http.url);
    const changed = new Promise<readonly Tool[]>((resolve) => remote.onToolsChanged(resolve));
    const first = remote.tools()[0];
    server.registerTools([
      defineTool({
        name: 'shout',
        description: 'Upper-cases',
        input: z.object({ text: z.string() }),
        effects: 'read',
        execute: ({ text }) => text.toUpperCase(),
      }),
    ]);
    const tools = await changed;
    expect(tools.map((tool) => tool.name)).toEqual(['remote__add', 'remote__shout']);
    expect(remote.tools()).toBe(tools);
    expect(tools[0]).toBe(first);
    expect((await run(remote, 'shout', { text: 'hi' })).modelOutput).toEqual({ type: 'text', value: 'HI' });
  });

  it('cancels the request on the server when the call times out', async () => {
    let aborted = false;
    const wait = defineTool({
      name: 'wait',
      description: 'Waits until cancelled',
      input: z.object({}),
      effects: 'read',
      timeoutMs: 10_000,
      execute: (_input, { signal }) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('cancelled'));
          }),
        ),
    });
    const { http } = await serve([wait]);
    const remote = await connect(http.url);
    const outcome = await run(remote, 'wait', {}, 100);
    expect(outcome.error?.code).toBe('tool_timeout');
    await expect.poll(() => aborted).toBe(true);
  });

  it('turns a vanished server into an error result, then reconnects when it is back', async () => {
    const first = await serve([add]);
    const remote = await connect(first.http.url, {
      reconnect: { initialDelayMs: 20, maxDelayMs: 50, maxAttempts: 100 },
    });
    expect((await run(remote, 'add', { a: 1, b: 1 })).ok).toBe(true);
    await first.server.close();

    const lost = await run(remote, 'add', { a: 1, b: 2 });
    expect(lost.ok).toBe(false);
    expect(lost.error?.code).toBe('mcp_unavailable');
    expect(lost.modelOutput).toEqual({
      type: 'error-text',
      value: expect.stringContaining('MCP server "remote" is not connected'),
    });

    const back = nextStatus(remote, 'connected');
    await serve([add], first.http.port);
    await back;
    expect((await run(remote, 'add', { a: 1, b: 2 })).modelOutput).toEqual({ type: 'text', value: '3' });
  });

  it('starts a new session and sends the call once more when the server has forgotten the session', async () => {
    let runs = 0;
    const count = defineTool({
      name: 'count',
      description: 'Counts its runs',
      input: z.object({}),
      effects: 'write',
      execute: () => ++runs,
    });
    const server = createMcpServer({ name: 'forgetful', tools: [count] });
    const http = await server.listenHttp({ sessionIdleMs: 50 });
    cleanups.push(() => server.close());
    const remote = await connect(http.url);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await run(remote, 'count', {})).modelOutput).toEqual({ type: 'text', value: '1' });
    expect(runs).toBe(1);
    expect(remote.status().state).toBe('connected');
  });

  it('fails to connect with mcp_unavailable when nothing listens', async () => {
    const { server, http } = await serve([add]);
    await server.close();
    await expect(connectMcp({ name: 'gone', transport: { type: 'http', url: http.url } })).rejects.toMatchObject({
      code: 'mcp_unavailable',
      message: expect.stringContaining('Cannot connect to MCP server "gone"'),
    });
  });
});
