import { hostname, networkInterfaces } from 'node:os';

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
