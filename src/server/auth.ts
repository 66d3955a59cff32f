import { createHmac, timingSafeEqual } from 'node:crypto';
import { hostname, networkInterfaces } from 'node:os';

/** The name of the session cookie. */
export const SESSION_COOKIE = 'agency_session';

/**
 * A session cookie's value: the holder's name and expiry, signed with HMAC-SHA256 under the server's session key, so
 * a session survives a restart of the server (the key is kept under the data root) and cannot be forged or extended.
 */
export function signSession(name: string, expiresAt: number, key: Uint8Array): string {
  const payload = Buffer.from(JSON.stringify({ n: name, e: expiresAt })).toString('base64url');
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

/** The name a session cookie was signed for, or undefined when it is forged, malformed or expired. */
export function verifySession(value: string | undefined, key: Uint8Array, now: number): string | undefined {
  if (!value || value.length > 1024) return undefined;
  const dot = value.indexOf('.');
  if (dot <= 0) return undefined;
  const payload = value.slice(0, dot);
  const expected = createHmac('sha256', key).update(payload).digest();
  const given = Buffer.from(value.slice(dot + 1), 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const { n, e } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { n?: unknown; e?: unknown };
    return typeof n === 'string' && typeof e === 'number' && e > now ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when a `Host` header names this server: one of `allowed` (`host` or `host:port`, lower case), so a page on
 * another name that resolves here (DNS rebinding) is refused.
 */
export function hostAllowed(host: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (!host || host.length > 300) return false;
  return allowed.has(host.toLowerCase());
}

/** True when an `Origin` header is this server itself, at one of its allowed hosts and its scheme. */
export function originAllowed(
  origin: string | undefined,
  allowed: ReadonlySet<string>,
  scheme: 'http' | 'https',
): boolean {
  if (!origin) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return url.protocol === `${scheme}:` && url.pathname === '/' && !url.username && allowed.has(url.host.toLowerCase());
}

/**
 * The `Host` values a server bound at `hostname:port` answers to: for a loopback bind, `localhost`, `127.0.0.1`
 * and `[::1]`; otherwise the bind address; plus every name given (with or without a port), each with the port.
 */
export function allowedHosts(hostname: string, port: number, names: readonly string[] = []): Set<string> {
  const loopback = ['localhost', '127.0.0.1', '[::1]'];
  const bind = hostname === '::1' ? '[::1]' : hostname;
  const base = loopback.includes(bind) ? loopback : [bind];
  const hosts = new Set<string>();
  for (const name of [...base, ...names]) {
    const lower = name.toLowerCase();
    if (/:\d+$/.test(lower) && !lower.endsWith(']')) hosts.add(lower);
    else hosts.add(`${lower}:${port}`);
    // Behind a reverse proxy on the default port, browsers send the name alone.
    if (names.includes(name)) hosts.add(lower);
  }
  return hosts;
}

/**
 * The names a server bound to every interface (`0.0.0.0`, `::`) answers to besides its bind address: the loopback
 * names, this host's name and each interface's address. Empty for any other bind address.
 */
export function wildcardNames(host: string): string[] {
  if (host !== '0.0.0.0' && host !== '::') return [];
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry !== undefined)
    .map((entry) => (entry.family === 'IPv6' ? `[${entry.address}]` : entry.address));
  return ['localhost', '127.0.0.1', '[::1]', hostname(), ...addresses];
}
