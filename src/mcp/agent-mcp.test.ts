import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LLMAgent } from '../agent/llm-agent.ts';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { connectMcp } from './connect-mcp.ts';
import type { McpConnection, McpStatus } from './mcp-connection.ts';
import type { ConnectMcpOptions } from './connect-options.ts';

const EVERYTHING = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);
const everythingOptions = (extra: Partial<ConnectMcpOptions> = {}): ConnectMcpOptions => ({
  name: 'everything',
  transport: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
  ...extra,
});

function toolResults(model: ScriptedModel, call: number) {
  const prompt = model.calls[call]?.options.prompt ?? [];
  return prompt.flatMap((message) => (message.role === 'tool' ? message.content : []));
}

function nextStatus(connection: McpConnection, state: McpStatus['state']): Promise<McpStatus> {
  if (connection.status().state === state) return Promise.resolve(connection.status());
  return new Promise((resolve) => {
    const stop = connection.onStatusChange((status) => {
      if (status.state !== state) return;
      stop();
      resolve(status);
    });
  });
}

// Three servers, started together: one shared, and one for each test that kills its server.
let everything: McpConnection;
let dies: McpConnection;
let diesAndReturns: McpConnection;

beforeAll(async () => {
  [everything, dies, diesAndReturns] = await Promise.all([
    connectMcp(everythingOptions()),
    connectMcp(everythingOptions({ reconnect: false })),
    connectMcp(everythingOptions({ reconnect: { initialDelayMs: 20 } })),
  ]);
});

afterAll(async () => {
  await Promise.all([everything, dies, diesAndReturns].map((connection) => connection?.close()));
});

describe('LLMAgent with MCP tools (server-everything over stdio)', () => {
  it('calls a server tool and feeds the real result back to the model', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'sum', name: 'everything__get-sum', input: { a: 2, b: 3 } }] },
      'The sum is 5.',
    ]);
    const agent = new LLMAgent({ name: 'calc', model, dynamicTools: () => everything.tools() });
    const result = await agent.execute({ input: 'What is 2 + 3?' });

    expect(result).toMatchObject({ finishReason: 'stop', output: 'The sum is 5.' });
    const offered = model.calls[0]?.options.tools?.find((tool) => tool.name === 'everything__get-sum');
    expect(offered).toMatchObject({ type: 'function', inputSchema: { required: ['a', 'b'] } });
    expect(toolResults(model, 1)).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'sum',
        toolName: 'everything__get-sum',
        output: { type: 'text', value: 'The sum of 2 and 3 is 5.' },
      },
    ]);
    expect(result.calls[0]).toMatchObject({ name: 'everything__get-sum', output: { content: [{ type: 'text' }] } });
  });

  it('collects an image from a tool result as an attachment', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'everything__get-tiny-image', input: {} }] }, 'A logo.']);
    const result = await new LLMAgent({ name: 'img', model, tools: everything.tools() }).execute({ input: 'Show it' });
    expect(result.attachments).toEqual([expect.objectContaining({ mediaType: 'image/png' })]);
  });

  it('shows the model its own invalid arguments as an error it can fix', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'everything__echo', input: { text: 'hi' } }] },
      { toolCalls: [{ name: 'everything__echo', input: { message: 'hi' } }] },
      'Done.',
    ]);
    const result = await new LLMAgent({ name: 'echo', model, tools: everything.tools() }).execute({ input: 'Echo' });
    expect(result.calls.map((step) => step.error?.code ?? 'ok')).toEqual(['tool_invalid_input', 'ok']);
    expect(JSON.stringify(toolResults(model, 1))).toContain('- message: is required');
  });
});

describe('a server that dies mid-session', () => {
  it('turns the next call into an error result; nothing throws out of the agent', async () => {
    const everything = dies;
    const pid = everything.status().pid as number;
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'everything__echo', input: { message: 'one' } }] },
      async () => {
        process.kill(pid, 'SIGKILL');
        await nextStatus(everything, 'disconnected');
        return { toolCalls: [{ name: 'everything__echo', input: { message: 'two' } }] };
      },
      'The server went away.',
    ]);
    const agent = new LLMAgent({ name: 'a', model, tools: everything.tools() });
    const result = await agent.execute({ input: 'Echo twice' });

    expect(result).toMatchObject({ finishReason: 'stop', output: 'The server went away.' });
    expect(result.calls.map((step) => step.error?.code ?? 'ok')).toEqual(['ok', 'mcp_unavailable']);
    expect(toolResults(model, 2).at(-1)).toMatchObject({
      output: { type: 'error-text', value: expect.stringContaining('MCP server "everything" is not connected') },
    });
    expect(everything.status()).toMatchObject({ state: 'disconnected', lastError: 'the server closed the connection' });

    await everything.reconnect();
    expect(everything.status()).toMatchObject({ state: 'connected', reconnectAttempts: 0 });
    expect(everything.status().pid).not.toBe(pid);
  });

  it('fails a call in flight at once, then reconnects in the background', async () => {
    const everything = diesAndReturns;
    const firstPid = everything.status().pid as number;
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'everything__trigger-long-running-operation', input: { duration: 10, steps: 10 } }] },
      async () => {
        await nextStatus(everything, 'connected');
        return { toolCalls: [{ name: 'everything__echo', input: { message: 'back' } }] };
      },
      'Recovered.',
    ]);
    const agent = new LLMAgent({ name: 'a', model, tools: everything.tools() });
    const started = performance.now();
    const result = await agent.execute(
      { input: 'Run long' },
      {
        onEvent: (event) => {
          if (event.type === 'tool-call-start' && event.toolName.endsWith('long-running-operation')) {
            setTimeout(() => process.kill(firstPid, 'SIGKILL'), 100);
          }
        },
      },
    );

    expect(result).toMatchObject({ finishReason: 'stop', output: 'Recovered.' });
    expect(result.calls.map((step) => step.error?.code ?? 'ok')).toEqual(['mcp_unavailable', 'ok']);
    expect(result.calls[0]?.durationMs).toBeLessThan(5_000);
    expect(performance.now() - started).toBeLessThan(9_000);
    expect(everything.status().pid).not.toBe(firstPid);
  });
});
