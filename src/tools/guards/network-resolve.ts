import { lookup as dnsLookup } from 'node:dns/promises';
import { abortedError } from '../../core/clock.ts';
import { AgencyError } from '../../core/errors.ts';
import { classifyParsed, isMetadataAddress } from './network-address.ts';
import { type Allowlist, findAddressEntry, findDomainEntry } from './network-allowlist.ts';
import { blockedAddressError, displayUrl, networkFailedError } from './network-errors.ts';
import { formatIp, type ParsedIp, parseIpStrict } from './network-ip.ts';
import type { UrlTarget } from './network-url.ts';

/** One answer from a resolver. */
export type ResolvedAddress = { address: string; family?: number };

/** Resolves a hostname to every address it has. Inject one in tests; the default asks the system resolver. */
export type NetworkLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver: `dns.promises.lookup(hostname, { all: true })`. */
export const systemLookup: NetworkLookup = (hostname) => dnsLookup(hostname, { all: true });

/** The one address a hop connects to, after it passed the policy. */
export type PinnedAddress = { address: string; family: 4 | 6; ip: ParsedIp };

/**
 * Resolves the target's hostname once, refuses it if *any* answer is blocked (a mixed answer is how DNS rebinding
 * and round-robin tricks hide a private address), and pins the first answer. IP literals are pinned as they are.
 */
export async function resolveTarget(
  target: UrlTarget,
  allowlist: Allowlist,
  lookup: NetworkLookup,
  signal: AbortSignal,
): Promise<PinnedAddress> {
  if (target.literal !== undefined) return pin(target.literal);
  const answers = await lookupOrFail(target, lookup, signal);
  const pinned = answers.map((answer) => checkAnswer(target, answer.address, allowlist));
  const first = pinned[0];
  if (first === undefined) {
    throw new AgencyError('network_failed', `${displayUrl(target.url)}: ${target.hostname} resolved to no addresses.`, {
      details: { url: displayUrl(target.url), host: target.hostname },
    });
  }
  return first;
}

async function lookupOrFail(
  target: UrlTarget,
  lookup: NetworkLookup,
  signal: AbortSignal,
): Promise<readonly ResolvedAddress[]> {
  if (signal.aborted) throw abortedError(signal);
  let onAbort: (() => void) | undefined;
  // The system resolver cannot be cancelled, so the deadline races it instead.
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortedError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([lookup(target.hostname), aborted]);
  } catch (error) {
    if (signal.aborted) throw abortedError(signal);
    throw networkFailedError(`${displayUrl(target.url)}: could not resolve ${target.hostname}`, error);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

function checkAnswer(target: UrlTarget, address: string, allowlist: Allowlist): PinnedAddress {
  const context = { url: target.url, hostname: target.hostname, port: target.port, resolved: true };
  // Resolvers must answer in canonical form; anything else ("2130706433", "0x7f.1") is refused, not reinterpreted.
  const ip = typeof address === 'string' ? parseIpStrict(address) : undefined;
  if (ip === undefined) {
    throw blockedAddressError(context, { blocked: true, reason: 'invalid', address: String(address) });
  }
  const metadata = isMetadataAddress(ip);
  const byDomain = !metadata && findDomainEntry(allowlist, target.hostname, target.port) !== undefined;
  if (byDomain || findAddressEntry(allowlist, ip, target.port, { exactOnly: metadata })) return pin(ip);
  const verdict = classifyParsed(ip);
  if (verdict.blocked) throw blockedAddressError(context, verdict);
  return pin(ip);
}

function pin(ip: ParsedIp): PinnedAddress {
  return { address: formatIp(ip), family: ip.family, ip };
}
