import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tools/define-tool.ts';
import { type AgencyMcpServer, createMcpServer } from './mcp-server.ts';
import type { McpHttpListener } from './http-server.ts';

let probeCalls = 0;
let slowAborted = false;

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  effects: 'read',
  execute: ({ a, b }) => ({ sum: a + b }),
});
const probe = defineTool({
  name: 'probe',
  description: 'Counts its calls',
  input: z.object({}),
  effects: 'write',
  execute: () => `call ${++probeCalls}`,
});
const slow = defineTool({
  name: 'slow',
  description: 'Waits until cancelled',
  input: z.object({}),
  effects: 'read',
  timeoutMs: 10_000,
  execute: (_input, { signal }) =>
    new Promise<string>((_resolve, reject) => {
      signal.addEventListener('abort', () => {
        slowAborted = true;
        reject(new Error('cancelled'));
      });
    }),
});

let server: AgencyMcpServer;
let http: McpHttpListener;
let client: Client;
let transport: StreamableHTTPClientTransport;

beforeAll(async () => {
  server = createMcpServer({ name: 'agency-test', version: '1.2.3', tools: [add, probe, slow] });
  http = await server.listenHttp();
  client = new Client({ name: 'sdk-client', version: '1.0.0' });
  transport = new StreamableHTTPClientTransport(new URL(http.url));
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await server?.close();
});

/** A raw HTTP POST, so the Host header can be anything (fetch always sends the real one). */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const callProbe = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'probe', arguments: {} },
});
const sessionHeaders = () => ({
  accept: 'application/json, text/event-stream',
  'mcp-session-id': transport.sessionId ?? '',
  'mcp-protocol-version': '2025-06-18',
});

describe('createMcpServer over Streamable HTTP, with the official SDK client', () => {
  it('binds to 127.0.0.1 and reports the server info', () => {
    expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(client.getServerVersion()).toMatchObject({ name: 'agency-test', version: '1.2.3' });
  });

  it('lists the tools with the JSON Schemas the model would see, and effects as annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'probe', 'slow']);
    expect(tools[0]).toMatchObject({
      description: 'Adds two numbers',
      inputSchema: add.inputSchema,
      annotations: { readOnlyHint: true },
    });
    expect(tools[1]?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('calls a tool and returns its output, with objects as structured content', async () => {
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toEqual({
      content: [{ type: 'text', text: '{"sum":5}' }],
      structuredContent: { sum: 5 },
    });
  });

  it('returns a validation error result for bad arguments, naming the field', async () => {
    const result = await client.callTool({ name: 'add', arguments: { a: 'two' } });
    expect(result.isError).toBe(true);
    expect(result._meta).toEqual({ 'agency/error-code': 'tool_invalid_input' });
    const text = (result.content as Array<{ text: string }>)[0]?.text;
    expect(text).toContain('Invalid arguments for tool "add"');
    expect(text).toMatch(/- a: /);
    expect(text).toMatch(/- b: /);
  });

  it('answers an unknown tool with a protocol error', async () => {
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool "nope"/);
  });

  it('aborts the tool when the client cancels the request', async () => {
    const controller = new AbortController();
    const pending = client.callTool({ name: 'slow', arguments: {} }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow();
    await expect.poll(() => slowAborted).toBe(true);
  });
});

describe('DNS-rebinding protection', () => {
  it('refuses a foreign Host with 403 before any tool runs, and serves the real one', async () => {
    const before = probeCalls;
    const refused = await rawPost(http.url, { ...sessionHeaders(), host: 'evil.example' }, callProbe(901));
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('Host \\"evil.example\\" is not allowed');
    const withPort = await rawPost(
      http.url,
      { ...sessionHeaders(), host: `evil.example:${http.port}` },
      callProbe(902),
    );
    expect(withPort.status).toBe(403);
    expect(probeCalls).toBe(before);
    const served = await rawPost(http.url, { ...sessionHeaders(), host: `localhost:${http.port}` }, callProbe(903));
    expect(served.status).toBe(200);
    expect(probeCalls).toBe(before + 1);
  });

  it('refuses a foreign or null Origin with 403 (raw fetch), and accepts its own origin', async () => {
    const before = probeCalls;
    const post = (origin: string) =>
      fetch(http.url, {
        method: 'POST',
        headers: { ...sessionHeaders(), 'content-type': 'application/json', origin },
        body: JSON.stringify(callProbe(904)),
      });
    for (const origin of ['http://evil.example', `http://evil.example:${http.port}`, 'null', 'https://127.0.0.1']) {
      const response = await post(origin);
      expect(response.status, origin).toBe(403);
    }
    expect(probeCalls).toBe(before);
    expect((await post(`http://127.0.0.1:${http.port}`)).status).toBe(200);
    expect(probeCalls).toBe(before + 1);
  });

  it('refuses an initialize request from a foreign origin, so no session is created', async () => {
    const response = await fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        origin: 'http://evil.example',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'evil', version: '1' } },
      }),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('mcp-session-id')).toBeNull();
  });

  it('needs allowedHosts to bind beyond loopback', async () => {
    await expect(server.listenHttp({ host: '0.0.0.0' })).rejects.toThrow(/needs "allowedHosts"/);
  });
});

describe('HTTP limits', () => {
  it('answers other paths with 404, requests without a session with 400, and big bodies with 413', async () => {
    const base = new URL(http.url);
    expect((await fetch(new URL('/other', base), { method: 'POST', body: '{}' })).status).toBe(404);
    const noSession = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(callProbe(905)),
    });
    expect(noSession.status).toBe(400);
    const small = await server.listenHttp({ maxBodyBytes: 100 });
    try {
      const big = await fetch(small.url, { method: 'POST', body: JSON.stringify({ pad: 'x'.repeat(200) }) });
      expect(big.status).toBe(413);
    } finally {
      await small.close();
    }
  });

  it('ends the longest-idle session to make room, and sessions idle too long', async () => {
    const connectTo = async (url: string) => {
      const sdk = new Client({ name: 'c', version: '1' });
      await sdk.connect(new StreamableHTTPClientTransport(new URL(url)));
      return sdk;
    };
    const full = await server.listenHttp({ maxSessions: 1 });
    const idle = await server.listenHttp({ sessionIdleMs: 50 });
    try {
      const first = await connectTo(full.url);
      const second = await connectTo(full.url);
      await expect(first.listTools()).rejects.toThrow(/Session not found/);
      expect((await second.listTools()).tools).toHaveLength(3);
      const sleeper = await connectTo(idle.url);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await expect(sleeper.listTools()).rejects.toThrow(/Session not found/);
      await Promise.all([first.close(), second.close(), sleeper.close()]);
    } finally {
      await Promise.all([full.close(), idle.close()]);
    }
  });

  it('requires a bearer token when tokens are set, and keeps each session to the token that started it', async () => {
    const guarded = await server.listenHttp({
      tokens: [
        { name: 'ana', token: 's3cret' },
        { name: 'bo', token: 'other-s3cret' },
      ],
    });
    try {
      const anonymous = new Client({ name: 'anon', version: '1' });
      await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(guarded.url)))).rejects.toThrow();
      const authorized = new Client({ name: 'auth', version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(guarded.url), {
        requestInit: { headers: { authorization: 'Bearer s3cret' } },
      });
      await authorized.connect(transport);
      expect((await authorized.listTools()).tools).toHaveLength(3);
      const before = probeCalls;

      // Another valid token cannot ride on Ana's session.
      const hijack = await fetch(guarded.url, {
        method: 'POST',
        headers: {
          authorization: 'Bearer other-s3cret',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': transport.sessionId!,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify(callProbe(99)),
      });
      expect(hijack.status).toBe(403);
      expect(probeCalls).toBe(before);
      await authorized.close();
    } finally {
      await guarded.close();
    }
  });

  it('refuses an empty token list rather than serving without one', async () => {
    await expect(server.listenHttp({ tokens: [] })).rejects.toThrow(/"tokens" is empty/);
    await expect(server.listenHttp({ tokens: [{ name: '', token: 'x' }] })).rejects.toThrow(/tokens\.0/);
  });
});
