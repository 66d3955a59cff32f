import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardedFetch } from './network-fetch.ts';
import type { NetworkLookup } from './network-resolve.ts';
import { rejection } from '../../../test/support/rejection.ts';

type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string };
type Served = { port: number; origin: string; connections: number; seen: Seen[]; close(): Promise<void> };

const open: Served[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
  { host = '127.0.0.1', port = 0 } = {},
): Promise<Served> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  const served: Served = {
    port: actual,
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${actual}`,
    connections: 0,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', () => {
    served.connections += 1;
  });
  open.push(served);
  return served;
}

async function serveOrSkip(handler: Parameters<typeof serve>[0], host: string, port: number, skip: () => void) {
  const served = await serve(handler, { host, port }).catch(() => undefined);
  if (!served) skip();
  return served as Served;
}

const text = (body: Uint8Array) => new TextDecoder().decode(body);
const redirect = (status: number, location: string) => (_req: IncomingMessage, res: ServerResponse) =>
  res.writeHead(status, { location }).end();
const LOCAL = { allow: ['127.0.0.1/32'] };

describe('guardedFetch against allowlisted local servers', () => {
  it('fetches from 127.0.0.1 when the allowlist opens it', async () => {
    const server = await serve((_req, res) => res.writeHead(200, { 'x-kind': 'test' }).end('hello'));
    const res = await guardedFetch(`${server.origin}/path?q=1`, { policy: LOCAL });
    expect(res).toMatchObject({ status: 200, url: `${server.origin}/path?q=1`, redirects: [] });
    expect(res.remoteAddress).toBe('127.0.0.1');
    expect(res.headers['x-kind']).toBe('test');
    expect(text(res.body)).toBe('hello');
    expect(server.seen[0]).toMatchObject({ method: 'GET', url: '/path?q=1' });
    expect(server.seen[0]?.headers.host).toBe(`127.0.0.1:${server.port}`);
  });

  it('refuses the same server without the allowlist, before connecting', async () => {
    const server = await serve((_req, res) => res.end('reached'));
    const error = await rejection(guardedFetch(`${server.origin}/`));
    expect(error.code).toBe('network_blocked');
    expect(error.message).toContain('127.0.0.1 is a loopback address');
    expect(error.message).toContain('"127.0.0.1/32"');
    expect(server.connections).toBe(0);
  });

  it('honours a port-specific entry and refuses other ports', async () => {
    const open = await serve((_req, res) => res.end('open'));
    const closed = await serve((_req, res) => res.end('closed'));
    const policy = { allow: [`127.0.0.1:${open.port}`] };
    expect(text((await guardedFetch(`${open.origin}/`, { policy })).body)).toBe('open');
    expect((await rejection(guardedFetch(`${closed.origin}/`, { policy }))).code).toBe('network_blocked');
    expect(closed.connections).toBe(0);
  });

  it('sends a body with its length, and the caller headers', async () => {
    const server = await serve((_req, res, body) => res.end(`got ${body}`));
    const res = await guardedFetch(server.origin, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', 'X-Trace': 'abc' },
      body: 'payload',
      policy: LOCAL,
    });
    expect(text(res.body)).toBe('got payload');
    expect(server.seen[0]?.headers).toMatchObject({
      'content-length': '7',
      'content-type': 'text/plain',
      'x-trace': 'abc',
    });
  });

  it('refuses headers the guard owns, bad methods and GET bodies', async () => {
    const url = 'http://127.0.0.1:9/';
    const cases = [
      guardedFetch(url, { headers: { Host: 'internal.example' }, policy: LOCAL }),
      guardedFetch(url, { headers: { 'Transfer-Encoding': 'chunked' }, policy: LOCAL }),
      guardedFetch(url, { method: 'CONNECT' as 'GET', policy: LOCAL }),
      guardedFetch(url, { body: 'x', policy: LOCAL }),
      guardedFetch(url, { policy: { maxRedirects: -1 } }),
      guardedFetch(url, { policy: { allow: ['10.0.0.1/8'] } }),
    ];
    for (const error of await Promise.all(cases.map(rejection))) expect(error.code).toBe('invalid_argument');
  });

  it('reaches an IPv6 loopback server through a ::1 entry', async (ctx) => {
    const server = await serveOrSkip(
      (_req, res) => res.end('six'),
      '::1',
      0,
      () => ctx.skip('no ::1 here'),
    );
    const res = await guardedFetch(`${server.origin}/`, { policy: { allow: ['::1/128'] } });
    expect(text(res.body)).toBe('six');
    expect(res.remoteAddress).toBe('::1');
    expect(server.seen[0]?.headers.host).toBe(`[::1]:${server.port}`);
  });
});

describe('guardedFetch redirects', () => {
  it('follows a chain within the allowlist and reports every hop', async () => {
    const last = await serve((_req, res) => res.end('end of chain'));
    const middle = await serve(redirect(307, `${last.origin}/final`));
    const first = await serve(redirect(302, `${middle.origin}/next`));
    const res = await guardedFetch(`${first.origin}/start`, { policy: LOCAL });
    expect(text(res.body)).toBe('end of chain');
    expect(res.url).toBe(`${last.origin}/final`);
    expect(res.redirects).toEqual([`${first.origin}/start`, `${middle.origin}/next`]);
  });

  it('refuses a redirect to cloud metadata', async () => {
    const server = await serve(redirect(302, 'http://169.254.169.254/latest/meta-data/'));
    const error = await rejection(guardedFetch(`${server.origin}/`, { policy: LOCAL }));
    expect(error.code).toBe('network_blocked');
    expect(error.message).toMatch(/^Redirect from http:\/\/127\.0\.0\.1:\d+\/ refused\./);
    expect(error.message).toContain('169.254.169.254 is a cloud metadata endpoint');
  });

  it('refuses a redirect to a loopback port the allowlist does not open, which sees no connection', async () => {
    const target = await serve((_req, res) => res.end('internal admin'));
    const allowed = await serve(redirect(301, `${target.origin}/admin`));
    const error = await rejection(
      guardedFetch(`${allowed.origin}/`, { policy: { allow: [`127.0.0.1:${allowed.port}`] } }),
    );
    expect(error.code).toBe('network_blocked');
    expect(error.message).toContain(`127.0.0.1:${target.port}`);
    expect(allowed.connections).toBe(1);
    expect(target.connections).toBe(0);
  });

  it('stops after maxRedirects', async () => {
    const server = await serve(redirect(302, '/again'));
    const error = await rejection(guardedFetch(`${server.origin}/`, { policy: { ...LOCAL, maxRedirects: 2 } }));
    expect(error.code).toBe('network_too_many_redirects');
    expect(server.seen).toHaveLength(3);
  });

  it('turns a POST into a GET on 303 and keeps it on 307', async () => {
    const sink = await serve((req, res, body) => res.end(`${req.method} ${body}`));
    const see = await serve(redirect(303, `${sink.origin}/`));
    const keep = await serve(redirect(307, `${sink.origin}/`));
    const post = { method: 'POST' as const, body: 'data', headers: { 'content-type': 'text/plain' }, policy: LOCAL };
    expect(text((await guardedFetch(see.origin, post)).body)).toBe('GET ');
    expect(sink.seen[0]?.headers['content-type']).toBeUndefined();
    expect(text((await guardedFetch(keep.origin, post)).body)).toBe('POST data');
  });

  it('drops credentials on a cross-origin redirect but keeps them on the same origin', async () => {
    const other = await serve((_req, res) => res.end('other'));
    const server = await serve((req, res) => {
      if (req.url === '/same') redirect(302, '/landing')(req, res);
      else if (req.url === '/cross') redirect(302, `${other.origin}/`)(req, res);
      else res.end('landed');
    });
    const headers = { authorization: 'Bearer secret', cookie: 'session=1' };
    await guardedFetch(`${server.origin}/same`, { headers, policy: LOCAL });
    expect(server.seen[1]?.headers).toMatchObject(headers);
    await guardedFetch(`${server.origin}/cross`, { headers, policy: LOCAL });
    expect(other.seen[0]?.headers.authorization).toBeUndefined();
    expect(other.seen[0]?.headers.cookie).toBeUndefined();
  });
});

describe('guardedFetch pins the address it checked', () => {
  it('connects to the resolved address, not to what the system resolver would say', async (ctx) => {
    const victim = await serve((_req, res) => res.end('victim'));
    const skip = () => ctx.skip('127.0.0.2 cannot be bound here');
    const pinned = await serveOrSkip((_req, res) => res.end('pinned'), '127.0.0.2', victim.port, skip);
    // The system resolver says localhost is 127.0.0.1; the injected one says 127.0.0.2, and only it is used.
    const lookup: NetworkLookup = async () => [{ address: '127.0.0.2', family: 4 }];
    const res = await guardedFetch(`http://localhost:${victim.port}/`, { lookup, policy: { allow: ['localhost'] } });
    expect(text(res.body)).toBe('pinned');
    expect(res.remoteAddress).toBe('127.0.0.2');
    expect(pinned.seen[0]?.headers.host).toBe(`localhost:${victim.port}`);
    expect(victim.connections).toBe(0);
  });

  it('resolves once per hop, so a rebinding answer never reaches the socket', async (ctx) => {
    const victim = await serve((_req, res) => res.end('victim'));
    const skip = () => ctx.skip('127.0.0.2 cannot be bound here');
    const trusted = await serveOrSkip((_req, res) => res.end('trusted'), '127.0.0.2', victim.port, skip);
    let calls = 0;
    const lookup: NetworkLookup = async () => {
      calls += 1;
      return [{ address: calls === 1 ? '127.0.0.2' : '127.0.0.1' }];
    };
    const res = await guardedFetch(`http://rebind.test:${victim.port}/`, {
      lookup,
      policy: { allow: ['127.0.0.2/32'] },
    });
    expect(text(res.body)).toBe('trusted');
    expect(calls).toBe(1);
    expect(trusted.connections).toBe(1);
    expect(victim.connections).toBe(0);
  });

  it('refuses a name when any of its answers is blocked, even if the first is allowed', async () => {
    const server = await serve((_req, res) => res.end('reached'));
    const lookup: NetworkLookup = async () => [{ address: '127.0.0.1' }, { address: '10.0.0.7' }];
    const error = await rejection(guardedFetch(`http://multi.test:${server.port}/`, { lookup, policy: LOCAL }));
    expect(error.code).toBe('network_blocked');
    expect(error.message).toContain('multi.test resolved to 10.0.0.7');
    expect(server.connections).toBe(0);
  });
});
