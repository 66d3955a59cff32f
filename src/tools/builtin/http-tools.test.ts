import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../tool-registry.ts';
import { createHttpFetchTool } from './http-fetch.ts';
import { createHttpPostTool } from './http-post.ts';
import type { NetworkToolOptions } from './network-options.ts';

type Received = { method: string; url: string; headers: IncomingMessage['headers']; body: string };

// A real local server that counts every TCP connection, so a refused request can be shown to have sent nothing.
async function listen(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  const state = { server, received, connections: 0, port: 0 };
  server.on('connection', () => (state.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  return state;
}

const routes: Record<string, (res: ServerResponse, body: string) => void> = {
  '/text': (res) => {
    res.setHeader('content-type', 'text/html; charset=iso-8859-1');
    res.setHeader('set-cookie', 'session=abc123secret');
    res.setHeader('x-api-key', 'key-123456789');
    res.end(Buffer.from('<title>Caf\xe9</title>', 'latin1'));
  },
  '/json': (res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  },
  '/binary': (res) => {
    res.setHeader('content-type', 'image/png');
    res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
  },
  '/big': (res) => {
    res.setHeader('content-type', 'text/plain');
    res.end('x'.repeat(5000));
  },
  '/echo': (res, body) => {
    res.setHeader('content-type', 'application/json');
    res.end(body);
  },
};

let good: Awaited<ReturnType<typeof listen>>;
let victim: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  good = await listen((req, res, body) => {
    const path = req.url ?? '';
    if (path.startsWith('/to-victim')) {
      res.writeHead(302, { location: `http://127.0.0.1:${victim.port}/internal` }).end();
      return;
    }
    const route = routes[path];
    if (route) route(res, body);
    else res.writeHead(404).end('not found');
  });
  victim = await listen((_req, res) => res.end('INTERNAL-SECRET'));
});
afterAll(() => {
  good.server.close();
  victim.server.close();
});
beforeEach(() => {
  good.received.length = 0;
  victim.connections = 0;
});

const allowGood = (): NetworkToolOptions => ({ policy: { allow: [`127.0.0.1:${good.port}`] } });
const call = (toolName: string, input: unknown) => ({ toolCallId: 'c1', toolName, input });
const registry = (options: NetworkToolOptions = {}) =>
  createToolRegistry([createHttpFetchTool(options), createHttpPostTool(options)]);

describe('http_fetch', () => {
  it('fetches an allowlisted server: decoded body, final URL, redacted headers and the sha256 of the bytes', async () => {
    const outcome = await registry(allowGood()).run(call('http_fetch', { url: `http://127.0.0.1:${good.port}/text` }));
    expect(outcome.ok).toBe(true);
    const output = outcome.output as Record<string, unknown>;
    expect(output).toMatchObject({
      url: `http://127.0.0.1:${good.port}/text`,
      status: 200,
      body: '<title>Café</title>',
      encoding: 'text',
      bytes: 19,
      sha256: createHash('sha256').update(Buffer.from('<title>Caf\xe9</title>', 'latin1')).digest('hex'),
      truncated: false,
    });
    expect(output.headers).toMatchObject({ 'set-cookie': '[REDACTED]', 'x-api-key': '[REDACTED]' });
    expect(JSON.stringify(outcome)).not.toMatch(/abc123secret|key-123456789/);
    expect(good.received[0]?.method).toBe('GET');
  });

  it('cuts long bodies to maxBodyChars and fails oversize downloads with network_response_too_large', async () => {
    const cut = await registry({ ...allowGood(), maxBodyChars: 100 }).run(
      call('http_fetch', { url: `http://127.0.0.1:${good.port}/big` }),
    );
    expect(cut.output).toMatchObject({ body: 'x'.repeat(100), truncated: true, bytes: 5000 });
    const tooBig = await registry({ policy: { allow: [`127.0.0.1:${good.port}`], maxBytes: 1000 } }).run(
      call('http_fetch', { url: `http://127.0.0.1:${good.port}/big` }),
    );
    expect(tooBig.error?.code).toBe('network_response_too_large');
  });

  it('refuses binary bodies by default and returns base64 with a note when configured', async () => {
    const url = `http://127.0.0.1:${good.port}/binary`;
    const refused = await registry(allowGood()).run(call('http_fetch', { url }));
    expect(refused.error?.code).toBe('content_not_text');
    expect(refused.error?.message).toMatch(/binary content \(image\/png, 8 bytes\); http_fetch returns text only/);
    const encoded = await registry({ ...allowGood(), binary: 'base64' }).run(call('http_fetch', { url }));
    expect(encoded.output).toMatchObject({ encoding: 'base64', body: 'iVBORwABAgM=', note: expect.any(String) });
  });

  it.each([
    (port: number) => `http://127.0.0.1:${port}/`,
    (port: number) => `http://localhost:${port}/`,
    (port: number) => `http://2130706433:${port}/`,
    (port: number) => `http://[::ffff:127.0.0.1]:${port}/`,
    () => 'http://169.254.169.254/latest/meta-data/',
    () => 'http://metadata.google.internal/',
    () => 'file:///etc/passwd',
  ])('refuses SSRF target #%# and the local server sees no connection', async (target) => {
    const outcome = await registry().run(call('http_fetch', { url: target(victim.port) }));
    expect(outcome.ok).toBe(false);
    expect(['network_blocked', 'network_invalid_url']).toContain(outcome.error?.code);
    expect(victim.connections).toBe(0);
  });

  it('refuses a redirect from an allowlisted server to a local port that is not allowlisted', async () => {
    const outcome = await registry(allowGood()).run(
      call('http_fetch', { url: `http://127.0.0.1:${good.port}/to-victim` }),
    );
    expect(outcome.error?.code).toBe('network_blocked');
    expect(outcome.error?.message).toMatch(/^Tool "http_fetch" failed: Redirect from/);
    expect(victim.connections).toBe(0);
  });

  it('is idempotent with network effects', () => {
    const tool = createHttpFetchTool();
    expect([tool.effects, tool.idempotent]).toEqual(['network', true]);
  });
});

describe('http_post', () => {
  it('posts JSON and text through the guard and returns the response', async () => {
    const tools = registry(allowGood());
    const json = await tools.run(call('http_post', { url: `http://127.0.0.1:${good.port}/echo`, json: { a: [1, 2] } }));
    expect(json.output).toMatchObject({ status: 200, body: '{"a":[1,2]}' });
    expect(good.received[0]).toMatchObject({ method: 'POST', body: '{"a":[1,2]}' });
    expect(good.received[0]?.headers['content-type']).toBe('application/json');
    await tools.run(
      call('http_post', { url: `http://127.0.0.1:${good.port}/echo`, text: 'a,b\n1,2\n', content_type: 'text/csv' }),
    );
    expect(good.received[1]).toMatchObject({
      body: 'a,b\n1,2\n',
      headers: expect.objectContaining({ 'content-type': 'text/csv' }),
    });
  });

  it('needs exactly one of json or text, and caps the request body', async () => {
    const url = `http://127.0.0.1:${good.port}/echo`;
    const both = await registry(allowGood()).run(call('http_post', { url, json: 1, text: 'x' }));
    expect(both.error?.code).toBe('tool_invalid_input');
    expect(both.error?.message).toMatch(/exactly one of "json" or "text"/);
    const big = await createToolRegistry([createHttpPostTool({ ...allowGood(), maxRequestBytes: 10 })]).run(
      call('http_post', { url, text: 'x'.repeat(11) }),
    );
    expect(big.error?.code).toBe('limit_exceeded');
    expect(good.received).toHaveLength(0);
  });

  it('refuses SSRF targets without connecting', async () => {
    for (const url of [`http://127.0.0.1:${victim.port}/`, `http://[::1]:${victim.port}/`, 'http://169.254.169.254/']) {
      const outcome = await registry().run(call('http_post', { url, json: { x: 1 } }));
      expect(outcome.error?.code).toBe('network_blocked');
    }
    expect(victim.connections).toBe(0);
  });

  it('declares network effects and is not idempotent, so default policy can gate it', () => {
    const tool = createHttpPostTool();
    expect([tool.effects, tool.idempotent]).toEqual(['network', false]);
  });
});
