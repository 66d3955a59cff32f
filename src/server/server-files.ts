import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { readSecretFile, writeSecretFile } from '../http/token-file.ts';
import type { AgencyRoot } from '../config/agency-root.ts';

/** The key that signs session cookies, kept in `<root>/server/session.key` (0600) so sessions outlive a restart. */
export async function sessionKey(root: AgencyRoot): Promise<Uint8Array> {
  await mkdir(root.server, { recursive: true, mode: 0o700 });
  const file = join(root.server, 'session.key');
  const existing = await readSecretFile(file);
  if (existing && existing.length >= 32) return existing;
  const key = randomBytes(32);
  await writeSecretFile(file, key);
  return key;
}

/**
 * The server's TLS certificate: self-signed (RSA 2048, one year) for localhost, 127.0.0.1, ::1, this host's name
 * and any extra names, generated under `<root>/server/tls/` on first use; `regenerate` replaces it.
 */
export async function tlsFiles(root: AgencyRoot, { regenerate = false, names = [] as readonly string[] } = {}) {
  const dir = join(root.server, 'tls');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  if (!regenerate) {
    const key = await readSecretFile(keyFile);
    const cert = await readFile(certFile).catch(() => undefined);
    if (key && cert) return { cert, key, certFile, generated: false };
  }
  const dns = [...new Set(['localhost', hostname(), ...names.filter((name) => !/^[\d.:[\]]+$/.test(name))])];
  const ips = ['127.0.0.1', '::1', ...names.filter((name) => /^[\d.]+$|:/.test(name))];
  const now = new Date();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + 365 * 24 * 3_600_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...dns.map((value) => ({ type: 2 as const, value })),
          ...ips.map((ip) => ({ type: 7 as const, ip: ip.replace(/^\[|\]$/g, '') })),
        ],
      },
    ],
  });
  await writeFile(keyFile, pems.private, { mode: 0o600 });
  await writeFile(certFile, pems.cert, { mode: 0o644 });
  return { cert: Buffer.from(pems.cert), key: Buffer.from(pems.private), certFile, generated: true };
}
