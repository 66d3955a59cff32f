import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { guardedFetch } from './network-fetch.ts';
import type { NetworkLookup } from './network-resolve.ts';

type AttackCase = {
  category: string;
  name: string;
  url?: string;
  via?: string;
  redirectTo?: string;
  pad?: number;
  code: string;
};
type Corpus = { allow: string[]; dns: Record<string, string[][]>; cases: AttackCase[] };

const corpus = JSON.parse(readFileSync(new URL('./__fixtures__/ssrf-attacks.json', import.meta.url), 'utf8')) as Corpus;

type Listener = { server: Server; connections: number };

async function listen(host: string, port: number, handler: Parameters<typeof createServer>[1]): Promise<Listener> {
  const server = createServer(handler);
  const listener = { server, connections: 0 };
  server.on('connection', () => {
    listener.connections += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return listener;
}

async function tryListen(host: string, port: number, handler: Parameters<typeof createServer>[1]) {
  return await listen(host, port, handler).catch(() => undefined);
}

function close(listener: Listener | undefined): Promise<void> {
  if (!listener) return Promise.resolve();
  listener.server.closeAllConnections();
  return new Promise((resolve) => listener.server.close(() => resolve()));
}

// Each case gets a fresh resolver, so sequences such as "allowed first, loopback next" start over.
function corpusLookup(): NetworkLookup {
  const calls = new Map<string, number>();
  return async (hostname) => {
    const answers = corpus.dns[hostname.toLowerCase()];
    if (answers === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    const call = calls.get(hostname) ?? 0;
    calls.set(hostname, call + 1);
    return (answers[Math.min(call, answers.length - 1)] ?? []).map((address) => ({ address }));
  };
}

describe('SSRF corpus', () => {
  let victim: Listener;
  let victim6: Listener | undefined;
  let relay: Listener | undefined;
  let port = 0;
  const outcomes: { name: string; code: string | undefined }[] = [];

  beforeAll(async () => {
    victim = await listen('127.0.0.1', 0, (_req, res) => res.end('victim reached'));
    port = (victim.server.address() as AddressInfo).port;
    victim6 = await tryListen('::1', port, (_req, res) => res.end('victim reached'));
    // The relay stands in for a public server: allowlisted, it answers with the redirect a case asks for.
    relay = await tryListen('127.0.0.2', port, (req, res) => {
      const url = new URL(req.url ?? '/', 'http://relay');
      const location = url.pathname === '/loop' ? '/loop' : (url.searchParams.get('to') ?? '/');
      res.writeHead(302, { location }).end();
    });
  });

  afterAll(async () => {
    await Promise.all([close(victim), close(victim6), close(relay)]);
  });

  const expand = (text: string) => text.replaceAll('{port}', String(port));

  function caseUrl(attack: AttackCase): string {
    if (attack.redirectTo !== undefined) {
      const via = expand(attack.via ?? 'http://127.0.0.2:{port}');
      return `${via}/redirect?to=${encodeURIComponent(expand(attack.redirectTo))}`;
    }
    const url = expand(attack.url ?? '');
    return attack.pad === undefined ? url : `${url}?q=${'a'.repeat(attack.pad)}`;
  }

  it('holds at least 80 cases', () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(80);
  });

  it.for(corpus.cases)('$category: $name', async (attack, ctx) => {
    if (attack.redirectTo !== undefined && !relay) ctx.skip('127.0.0.2 cannot be bound on this machine');
    const before = victim.connections + (victim6?.connections ?? 0);
    const error = await guardedFetch(caseUrl(attack), {
      policy: { allow: corpus.allow, timeoutMs: 2000 },
      lookup: corpusLookup(),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    outcomes.push({ name: attack.name, code: AgencyError.isInstance(error) ? error.code : undefined });
    expect(AgencyError.isInstance(error), `${attack.name} was not refused`).toBe(true);
    expect((error as AgencyError).code).toBe(attack.code);
    if (attack.code === 'network_blocked') expect((error as AgencyError).message).toContain('policy.allow');
    expect(victim.connections + (victim6?.connections ?? 0) - before).toBe(0);
  });

  it('blocked every case and the victim saw no connection', () => {
    const refused = outcomes.filter((outcome) => outcome.code !== undefined);
    expect(refused.length).toBe(outcomes.length);
    expect(victim.connections).toBe(0);
    expect(victim6?.connections ?? 0).toBe(0);
  });
});
