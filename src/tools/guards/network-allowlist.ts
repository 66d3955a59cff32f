import { AgencyError } from '../../core/errors.ts';
import { type Cidr, cidrContains, type ParsedIp, parseCidr, parseIp } from './network-ip.ts';

/** One parsed `policy.allow` entry. `port` limits it to one port; without it every port is open. */
export type AllowEntry =
  | { kind: 'domain'; text: string; domain: string; wildcard: boolean; port?: number }
  | { kind: 'cidr'; text: string; cidr: Cidr; exact: boolean; port?: number };

/** A parsed allowlist; build one with {@link parseAllowlist}. */
export type Allowlist = { readonly entries: readonly AllowEntry[] };

const FIX =
  'Use a domain ("api.example.com"), a suffix ("*.example.com"), an address or CIDR ("10.0.0.0/8", "fd00::/8"), ' +
  'optionally with a port ("127.0.0.1:8080", "[::1]:8080", "api.example.com:8443").';

/**
 * Parses `policy.allow`. Entries are exact domains, `*.suffix` domains (subdomains only, not the apex), IPv4 or IPv6
 * addresses and CIDRs, each optionally limited to one port. Throws `invalid_argument` naming the bad entry.
 *
 * @example
 * parseAllowlist(['127.0.0.1/32', '*.internal.example.com', '[::1]:8080'])
 */
export function parseAllowlist(entries: readonly string[] = []): Allowlist {
  return { entries: entries.map((entry, index) => parseEntry(entry, index)) };
}

function parseEntry(text: string, index: number): AllowEntry {
  const fail = (why: string): never => {
    throw new AgencyError('invalid_argument', `policy.allow[${index}] "${text}": ${why}. ${FIX}`, {
      details: { field: `policy.allow[${index}]`, entry: text },
    });
  };
  if (text.includes('://')) return fail('write the host, not a URL');
  const { target, portText } = splitPort(text.trim()) ?? fail('unbalanced brackets');
  const port = portText === undefined ? undefined : parsePort(portText);
  if (port === null) return fail(`port "${portText}" must be 1..65535`);
  const withPort = <T extends object>(entry: T): T & { port?: number } =>
    port === undefined ? entry : { ...entry, port };
  if (target.includes('/') || target.includes(':') || parseIp(target) !== undefined) {
    const parsed = parseCidr(target);
    if ('error' in parsed) return fail(parsed.error);
    const exact = parsed.prefix === (parsed.family === 4 ? 32 : 128);
    return withPort({ kind: 'cidr' as const, text, cidr: parsed, exact });
  }
  const wildcard = target.startsWith('*.');
  const domain = normalizeDomain(wildcard ? target.slice(2) : target);
  if (domain === undefined) return fail('not a valid domain name');
  return withPort({ kind: 'domain' as const, text, domain, wildcard });
}

function splitPort(text: string): { target: string; portText?: string } | undefined {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close === -1) return undefined;
    const rest = text.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return undefined;
    return rest === '' ? { target: text.slice(1, close) } : { target: text.slice(1, close), portText: rest.slice(1) };
  }
  const colons = text.split(':').length - 1;
  if (colons !== 1) return { target: text };
  const [target = '', portText = ''] = text.split(':');
  return { target, portText };
}

function parsePort(text: string): number | null {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : 0;
  return port >= 1 && port <= 65_535 ? port : null;
}

function normalizeDomain(name: string): string | undefined {
  if (name === '' || /[/@?#\\\s%*]/.test(name)) return undefined;
  try {
    // WHATWG host parsing lower-cases and punycodes exactly as it does for the URLs checked against this entry.
    const host = new URL(`http://${name}/`).hostname;
    const domain = host.endsWith('.') ? host.slice(0, -1) : host;
    return /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(domain) ? domain : undefined;
  } catch {
    return undefined;
  }
}

/** Lower-cases a URL hostname and drops one trailing dot, so `Example.COM.` compares equal to `example.com`. */
export function normalizeHostname(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/**
 * The domain entry that opens `hostname` on `port`, if any. With `exactOnly`, `*.suffix` entries do not count.
 * @default exactOnly false
 */
export function findDomainEntry(
  allowlist: Allowlist,
  hostname: string,
  port: number,
  { exactOnly = false }: { exactOnly?: boolean } = {},
): AllowEntry | undefined {
  const host = normalizeHostname(hostname);
  return allowlist.entries.find((entry) => {
    if (entry.kind !== 'domain' || (entry.port !== undefined && entry.port !== port)) return false;
    if (entry.wildcard) return !exactOnly && host.endsWith(`.${entry.domain}`);
    return host === entry.domain;
  });
}

/**
 * The address entry that opens `ip` on `port`, if any. With `exactOnly`, only single-address entries (/32, /128)
 * count; metadata addresses need one.
 * @default exactOnly false
 */
export function findAddressEntry(
  allowlist: Allowlist,
  ip: ParsedIp,
  port: number,
  { exactOnly = false }: { exactOnly?: boolean } = {},
): AllowEntry | undefined {
  return allowlist.entries.find((entry) => {
    if (entry.kind !== 'cidr' || (entry.port !== undefined && entry.port !== port)) return false;
    return (!exactOnly || entry.exact) && cidrContains(entry.cidr, { family: ip.family, value: ip.value });
  });
}
