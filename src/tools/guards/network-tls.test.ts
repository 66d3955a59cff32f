import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { guardedFetch } from './network-fetch.ts';

function selfSigned(name: string): { key: Buffer; cert: Buffer } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'agency-tls-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'].concat([
        '-keyout',
        key,
        '-out',
        cert,
        '-subj',
        `/CN=${name}`,
        '-addext',
        `subjectAltName=DNS:${name}`,
      ]),
      { stdio: 'ignore' },
    );
    return { key: readFileSync(key), cert: readFileSync(cert) };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('guardedFetch over TLS', () => {
  it('sends the hostname as SNI to the pinned address and still verifies the certificate', async (ctx) => {
    const pair = selfSigned('pinned.test');
    if (!pair) return ctx.skip('openssl is not available');
    const sniNames: string[] = [];
    let handled = 0;
    const server = createServer(
      {
        ...pair,
        SNICallback: (name, done) => {
          sniNames.push(name);
          done(null, createSecureContext(pair));
        },
      },
      (_req, res) => {
        handled += 1;
        res.end('secret');
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (server.address() as AddressInfo).port;
      const error = await guardedFetch(`https://pinned.test:${port}/`, {
        lookup: async () => [{ address: '127.0.0.1' }],
        policy: { allow: ['127.0.0.1/32'] },
      }).catch((e: unknown) => e);
      expect(AgencyError.hasCode(error, 'network_failed')).toBe(true);
      expect((error as AgencyError).retryable).toBe(false);
      expect((error as AgencyError).message).toMatch(/self[- ]signed/i);
      expect(sniNames).toEqual(['pinned.test']);
      expect(handled).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
