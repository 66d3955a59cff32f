import { classifyParsed, isMetadataAddress } from './network-address.ts';
import { type Allowlist, findAddressEntry, findDomainEntry, normalizeHostname } from './network-allowlist.ts';
import { blockedAddressError, blockedNameError, invalidUrlError } from './network-errors.ts';
import { type ParsedIp, parseIp } from './network-ip.ts';
import { type NetworkPolicy, resolvePolicy } from './network-policy.ts';

/** A URL that passed {@link checkUrl}. */
export type UrlTarget = {
  url: URL;
  /** The host to connect to: the URL hostname without IPv6 brackets. */
  hostname: string;
  /** The port, with 80 and 443 filled in for the default. */
  port: number;
  /** Set when the host is an IP literal; it has already been checked. */
  literal?: ParsedIp;
};

const SCHEMES = new Set(['http:', 'https:']);

// Names that reach this machine or a metadata service without any DNS: refused by name so that no resolver quirk
// (a hosts file, a search domain, a split-horizon zone) can decide the outcome.
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
]);
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);

/**
 * Checks a URL before any network traffic: scheme (`http:`/`https:` only), length, no credentials, and, for IP
 * literals and well-known hostnames, the address policy. Hostnames still need DNS; `guardedFetch` resolves and
 * checks them. Returns the parsed target, or throws `network_invalid_url` or `network_blocked`.
 *
 * @example
 * checkUrl('http://127.0.0.1:8080/', { allow: ['127.0.0.1/32'] }) // ok
 * checkUrl('http://0x7f.1/') // throws network_blocked: 127.0.0.1 is a loopback address
 */
export function checkUrl(url: string | URL, policy: NetworkPolicy = {}): UrlTarget {
  const { allowlist, maxUrlLength } = resolvePolicy(policy);
  return checkTarget(url, allowlist, maxUrlLength);
}

/** {@link checkUrl} with the policy already resolved, for use on every redirect hop. */
export function checkTarget(input: string | URL, allowlist: Allowlist, maxUrlLength: number): UrlTarget {
  const url = parseUrl(input, maxUrlLength);
  if (!SCHEMES.has(url.protocol)) {
    throw invalidUrlError(
      url,
      `scheme "${url.protocol}" is not allowed; only http: and https: are`,
      'Other schemes (file:, gopher:, ftp:, data:, ws:) are never fetched by the network guard.',
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw invalidUrlError(
      url,
      'the URL carries credentials (user:password@)',
      'They would leak into logs and journals, and "trusted.example@evil.example" URLs mislead readers; ' +
        'send credentials in an Authorization header instead.',
    );
  }
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (hostname === '') throw invalidUrlError(url, 'the URL has no host', 'Pass a URL such as https://example.com/.');
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const literal = parseIp(hostname);
  if (literal !== undefined) {
    checkLiteral(url, hostname, port, literal, allowlist);
    return { url, hostname, port, literal };
  }
  checkName(url, hostname, port, allowlist);
  return { url, hostname, port };
}

function parseUrl(input: string | URL, maxUrlLength: number): URL {
  const text = String(input);
  if (text.length > maxUrlLength) {
    throw invalidUrlError(
      text,
      `the URL is ${text.length} characters, over the limit of ${maxUrlLength}`,
      'Raise policy.maxUrlLength if URLs this long are intended.',
    );
  }
  try {
    return new URL(text);
  } catch (cause) {
    const error = invalidUrlError(
      text,
      'it is not a valid absolute URL',
      'Pass a full URL such as https://example.com/.',
    );
    throw Object.assign(error, { cause });
  }
}

function checkLiteral(url: URL, hostname: string, port: number, ip: ParsedIp, allowlist: Allowlist): void {
  if (findAddressEntry(allowlist, ip, port, { exactOnly: isMetadataAddress(ip) })) return;
  const verdict = classifyParsed(ip);
  if (verdict.blocked) throw blockedAddressError({ url, hostname, port, resolved: false }, verdict);
}

function checkName(url: URL, hostname: string, port: number, allowlist: Allowlist): void {
  const name = normalizeHostname(hostname);
  if (METADATA_NAMES.has(name) && !findDomainEntry(allowlist, name, port, { exactOnly: true })) {
    throw blockedNameError(url, name, 'metadata');
  }
  const loopback = LOOPBACK_NAMES.has(name) || name.endsWith('.localhost');
  if (loopback && !findDomainEntry(allowlist, name, port)) throw blockedNameError(url, name, 'loopback');
}
