import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { AgencyError } from '../core/errors.ts';
import type { AgencyRoot } from '../config/agency-root.ts';

/**
 * A secret file: a regular file, readable by its owner only, or refused naming the fix; undefined when it is missing.
 */
export async function readSecretFile(file: string): Promise<Buffer | undefined> {
  const stats = await lstat(file).catch(() => undefined);
  if (!stats) return undefined;
  if (!stats.isFile())
    throw new AgencyError('invalid_config', `${file} is not a regular file (a link?); remove it and start again`, {
      details: { file },
    });
  if ((stats.mode & 0o077) !== 0)
    throw new AgencyError(
      'invalid_config',
      `${file} is readable by others (mode ${(stats.mode & 0o777).toString(8)}); fix it with: chmod 600 ${file}`,
      { details: { file } },
    );
  return readFile(file);
}

async function writeSecretFile(file: string, data: string | Uint8Array): Promise<void> {
  await writeFile(file, data, { mode: 0o600, flag: 'wx' });
}

/**
 * The API token: `AGENCY_TOKEN` when set; otherwise `<dir>/token` (`<root>/server/token` for `agency serve`, the
 * instance directory for a worker), generated (256 random bits, mode 0600) on the first start, when `generated` is
 * true and the caller prints it once. A token file readable by others is refused, naming the `chmod 600` fix.
 */
export async function serverToken(dir: string, env: NodeJS.ProcessEnv = process.env) {
  const fromEnv = env.AGENCY_TOKEN;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < 16)
      throw new AgencyError(
        'invalid_config',
        'AGENCY_TOKEN is too short: use at least 16 characters (e.g. openssl rand -hex 32)',
      );
    return { token: fromEnv, file: undefined, generated: false };
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'token');
  const existing = await readSecretFile(file);
  if (existing) return { token: existing.toString('utf8').trim(), file, generated: false };
  const token = randomBytes(32).toString('hex');
  await writeSecretFile(file, `${token}\n`);
  return { token, file, generated: true };
}

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
