import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../tool-registry.ts';
import { createLinksCheckTool, type LinksCheckOutput, type LinksCheckToolOptions } from './links-check.ts';

let server: Server;
let victim: Server;
let port: number;
let victimPort: number;
let victimConnections = 0;
let inFlight = 0;
let maxInFlight = 0;
const methods: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    methods.push(`${req.method} ${req.url}`);
    if (req.url === '/ok') return res.end('fine');
    if (req.url === '/moved') return res.writeHead(301, { location: '/ok' }).end();
    if (req.url === '/head-405') return res.writeHead(req.method === 'HEAD' ? 405 : 200).end();
    if (req.url?.startsWith('/slow')) {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        res.end('slow');
      }, 60);
      return;
    }
    res.writeHead(404).end('missing');
  });
  victim = createServer((_req, res) => res.end('INTERNAL'));
  victim.on('connection', () => (victimConnections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => victim.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  victimPort = (victim.address() as AddressInfo).port;
});
afterAll(() => {
  server.close();
  victim.close();
});

async function check(urls: string[], options: Partial<LinksCheckToolOptions> = {}) {
  const tool = createLinksCheckTool({ policy: { allow: [`127.0.0.1:${port}`] }, ...options });
  return createToolRegistry([tool]).run({ toolCallId: 'c1', toolName: 'links_check', input: { urls } });
}

describe('links_check', () => {
  it('reports each URL, follows redirects, and falls back to GET when HEAD fails', async () => {
    const base = `http://127.0.0.1:${port}`;
    methods.length = 0;
    const outcome = await check([`${base}/ok`, `${base}/moved`, `${base}/head-405`, `${base}/gone`, `${base}/ok`]);
    const output = outcome.output as LinksCheckOutput;
    expect(output).toMatchObject({ checked: 4, ok: 3, broken: 1 });
    expect(output.results).toEqual([
      { url: `${base}/ok`, ok: true, status: 200, method: 'HEAD' },
      { url: `${base}/moved`, ok: true, status: 200, method: 'HEAD', final_url: `${base}/ok` },
      { url: `${base}/head-405`, ok: true, status: 200, method: 'GET' },
      { url: `${base}/gone`, ok: false, status: 404, method: 'GET' },
    ]);
    expect(methods.filter((line) => line.endsWith('/head-405'))).toEqual(['HEAD /head-405', 'GET /head-405']);
  });

  it('reports blocked destinations per URL without connecting to them', async () => {
    const outcome = await check([
      `http://127.0.0.1:${victimPort}/admin`,
      `http://localhost:${victimPort}/`,
      'http://169.254.169.254/latest/meta-data/',
      'gopher://127.0.0.1/',
      `http://127.0.0.1:${port}/ok`,
    ]);
    const output = outcome.output as LinksCheckOutput;
    expect(output.results.map((result) => result.error?.code ?? result.status)).toEqual([
      'network_blocked',
      'network_blocked',
      'network_blocked',
      'network_invalid_url',
      200,
    ]);
    expect(victimConnections).toBe(0);
  });

  it('keeps at most `concurrency` checks in flight and caps the count per call', async () => {
    maxInFlight = 0;
    const urls = Array.from({ length: 6 }, (_, i) => `http://127.0.0.1:${port}/slow/${i}`);
    const outcome = await check(urls, { concurrency: 2 });
    expect((outcome.output as LinksCheckOutput).ok).toBe(6);
    expect(maxInFlight).toBe(2);
    const tooMany = await check(urls, { maxUrls: 5 });
    expect(tooMany.error?.code).toBe('tool_invalid_input');
  });

  it('is an idempotent network tool', () => {
    const tool = createLinksCheckTool();
    expect([tool.effects, tool.idempotent]).toEqual(['network', true]);
  });
});
