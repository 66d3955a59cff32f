import {
  type AllowEntry,
  type Allowlist,
  findAddressEntry,
  findDomainEntry,
  parseAllowlist,
} from '../tools/guards/network-allowlist.ts';
import { cidrContains, parseIp } from '../tools/guards/network-ip.ts';

/**
 * One network allowlist entry, parsed, or what is wrong with it (the guard's message without its field prefix, for
 * the caller to name the file and field).
 *
 * @example
 * parseAllowEntry('http://x.example') // { problem: 'write the host, not a URL. Use a domain …' }
 */
export function parseAllowEntry(text: string): AllowEntry | { problem: string } {
  try {
    return parseAllowlist([text]).entries[0] as AllowEntry;
  } catch (cause) {
    return { problem: (cause as Error).message.replace(/^policy\.allow\[0\] "[^"]*": /, '') };
  }
}

/**
 * True when `entry` opens nothing that the operator's `allowlist` does not: a host the operator lists (or one under
 * a `*.suffix` they list), a CIDR inside one of theirs, on a port they allow. A task may list only such entries.
 *
 * @example
 * isCoveredBy(parseAllowlist(['*.example.com']), parseAllowlist(['docs.example.com']).entries[0]) // true
 */
export function isCoveredBy(allowlist: Allowlist, entry: AllowEntry): boolean {
  return allowlist.entries.some((allowed) => covers(allowed, entry));
}

function covers(allowed: AllowEntry, entry: AllowEntry): boolean {
  // An entry without a port opens every port, so only an operator entry without a port covers it.
  if (allowed.port !== undefined && allowed.port !== entry.port) return false;
  if (allowed.kind === 'domain' && entry.kind === 'domain') {
    if (!allowed.wildcard) return !entry.wildcard && entry.domain === allowed.domain;
    return (entry.wildcard && entry.domain === allowed.domain) || entry.domain.endsWith(`.${allowed.domain}`);
  }
  if (allowed.kind === 'cidr' && entry.kind === 'cidr') {
    const { family, base, prefix } = entry.cidr;
    return allowed.cidr.prefix <= prefix && cidrContains(allowed.cidr, { family, value: base });
  }
  return false;
}

/**
 * True when every URL in the call's `url`/`urls` arguments is `http(s)` and its host and port are on `allowlist`
 * (by name for a name, by address for an address literal). A call with no URL argument is not.
 *
 * @example
 * urlsAllowed(parseAllowlist(['127.0.0.1:48213']), { url: 'http://127.0.0.1:48213/survey.html' }) // true
 */
export function urlsAllowed(allowlist: Allowlist, input: unknown): boolean {
  if (typeof input !== 'object' || input === null) return false;
  const { url, urls } = input as { url?: unknown; urls?: unknown };
  const all = [...(typeof url === 'string' ? [url] : []), ...(Array.isArray(urls) ? urls.map(String) : [])];
  return all.length > 0 && all.every((text) => urlAllowed(allowlist, text));
}

function urlAllowed(allowlist: Allowlist, text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const ip = parseIp(host);
  if (ip) return findAddressEntry(allowlist, ip, port) !== undefined;
  return findDomainEntry(allowlist, host, port) !== undefined;
}
