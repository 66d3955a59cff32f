import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedFetch } from './network-fetch.ts';
import { rejection } from '../../../test/support/rejection.ts';

const servers: Server[] = [];
afterEach(async () => {
  const closing = servers.splice(0).map((server) => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  await Promise.all(closing);
});

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const allow = ['127.0.0.1/32'];

describe('guardedFetch limits', () => {
  it('stops reading a response that streams forever', async () => {
    let written = 0;
    const url = await serve((_req, res) => {
      const chunk = Buffer.alloc(16 * 1024, 'a');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const started = Date.now();
    const error = await rejection(guardedFetch(url, { policy: { allow, maxBytes: 100_000 } }));
    expect(error.code).toBe('network_response_too_large');
    expect(error.message).toContain('over the limit of 100000');
    expect(error.message).toContain('policy.maxBytes');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(written).toBeLessThan(10_000_000);
  });

  it('refuses a declared Content-Length over the cap without reading it', async () => {
    const url = await serve((_req, res) => res.writeHead(200, { 'content-length': '5000000' }).end());
    const error = await rejection(guardedFetch(url, { policy: { allow, maxBytes: 1000 } }));
    expect(error.code).toBe('network_response_too_large');
    expect(error.message).toContain('declares 5000000 bytes');
  });

  it('accepts a body exactly at the cap', async () => {
    const url = await serve((_req, res) => res.end('x'.repeat(1000)));
    const res = await guardedFetch(url, { policy: { allow, maxBytes: 1000 } });
    expect(res.body.byteLength).toBe(1000);
  });

  it('times out on a server that never answers', async () => {
    const url = await serve(() => {});
    const started = Date.now();
    const error = await rejection(guardedFetch(url, { policy: { allow, timeoutMs: 200 } }));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('within 200 ms');
    expect(error.message).toContain('policy.timeoutMs');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('times out on a body that stalls after the headers', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    const error = await rejection(guardedFetch(url, { policy: { allow, timeoutMs: 200 } }));
    expect(error.code).toBe('timeout');
  });

  it('times out on a resolver that never answers', async () => {
    const lookup = () => new Promise<never>(() => {});
    const error = await rejection(guardedFetch('http://slow.test/', { lookup, policy: { timeoutMs: 100 } }));
    expect(error.code).toBe('timeout');
  });

  it('stops when the caller aborts', async () => {
    const url = await serve(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await rejection(guardedFetch(url, { policy: { allow }, signal: controller.signal }));
    expect(error.code).toBe('aborted');
    const already = await rejection(guardedFetch(url, { policy: { allow }, signal: AbortSignal.abort() }));
    expect(already.code).toBe('aborted');
  });

  it('reports a refused connection as a retryable network failure', async () => {
    const url = await serve(() => {});
    const port = new URL(url).port;
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    const error = await rejection(guardedFetch(`http://127.0.0.1:${port}/`, { policy: { allow } }));
    expect(error.code).toBe('network_failed');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('reports a name that does not resolve as a permanent network failure', async () => {
    const lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
    };
    const error = await rejection(guardedFetch('http://nowhere.test/', { lookup }));
    expect(error.code).toBe('network_failed');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('could not resolve nowhere.test');
  });

  it('reports a resolver with no answers as a network failure', async () => {
    const error = await rejection(guardedFetch('http://empty.test/', { lookup: async () => [] }));
    expect(error.code).toBe('network_failed');
  });
});
