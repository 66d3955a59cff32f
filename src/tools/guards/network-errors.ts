import { AgencyError } from '../../core/errors.ts';
import type { AddressClass, AddressReason } from './network-address.ts';

const PHRASES: Record<AddressReason, string> = {
  public: 'a public address',
  invalid: 'not a canonical IP address',
  unspecified: 'the unspecified address (it reaches this machine)',
  loopback: 'a loopback address',
  private: 'a private-network address',
  'link-local': 'a link-local address',
  cgnat: 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  benchmarking: 'a benchmarking address',
  documentation: 'a documentation address',
  metadata: 'a cloud metadata endpoint (it hands out credentials)',
};

/** A URL fit for an error message: credentials removed, length bounded. */
export function displayUrl(url: URL | string): string {
  let text = String(url);
  if (url instanceof URL && (url.username !== '' || url.password !== '')) {
    const copy = new URL(url.href);
    copy.username = '';
    copy.password = '';
    text = copy.href.replace('://', '://***@');
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** `network_invalid_url`: the URL breaks `rule`; `fix` says what to do instead. */
export function invalidUrlError(url: URL | string, rule: string, fix: string): AgencyError {
  const shown = displayUrl(url);
  return new AgencyError('network_invalid_url', `Network guard refused ${JSON.stringify(shown)}: ${rule}. ${fix}`, {
    details: { url: shown, rule },
  });
}

/** Where a refused address came from, for the message. */
export type AddressContext = {
  url: URL;
  hostname: string;
  port: number;
  /** True when DNS produced the address; false for an IP literal in the URL. */
  resolved: boolean;
};

/** `network_blocked` for an address, naming the rule and the allowlist entry that would open it. */
export function blockedAddressError(context: AddressContext, verdict: AddressClass): AgencyError {
  const { url, hostname, port, resolved } = context;
  const address = verdict.address;
  const via = verdict.embedded ? ` (it embeds ${verdict.embedded.address}, ${verdict.embedded.kind})` : '';
  const range = verdict.range === undefined ? '' : ` [${verdict.range}]`;
  const subject = resolved ? `${hostname} resolved to ${address}${via}, which is` : `${address}${via} is`;
  const fix = allowAdvice(verdict, hostname, port, resolved);
  const message = `Network guard refused ${displayUrl(url)}: ${subject} ${PHRASES[verdict.reason]}${range}. ${fix}`;
  return new AgencyError('network_blocked', message, {
    details: { url: displayUrl(url), host: hostname, address, reason: verdict.reason, range: verdict.range },
  });
}

function allowAdvice(verdict: AddressClass, hostname: string, port: number, resolved: boolean): string {
  if (verdict.reason === 'invalid') {
    return 'Only canonical IPv4 and IPv6 answers are accepted and policy.allow cannot open anything else; fix the resolver.';
  }
  const v6 = verdict.address.includes(':');
  const single = v6 ? `${verdict.address}/128` : `${verdict.address}/32`;
  const withPort = v6 ? `[${verdict.address}]:${port}` : `${verdict.address}:${port}`;
  if (verdict.reason === 'metadata') {
    return (
      `If reaching it is truly intended, add the exact address "${verdict.address}" to policy.allow; ` +
      'wider CIDRs and domain entries never open metadata addresses.'
    );
  }
  const domain = resolved ? `, or the domain "${hostname}"` : '';
  return `If this destination is intended, add "${single}" (or "${withPort}" for this port only${domain}) to policy.allow.`;
}

/** `network_blocked` for a hostname refused by name, before any DNS lookup. */
export function blockedNameError(url: URL, hostname: string, reason: 'metadata' | 'loopback'): AgencyError {
  const what = reason === 'metadata' ? 'a cloud metadata hostname' : 'a loopback hostname (RFC 6761)';
  const entry = reason === 'metadata' ? 'the exact domain' : 'the domain';
  const message =
    `Network guard refused ${displayUrl(url)}: ${hostname} is ${what}. ` +
    `If this destination is intended, add ${entry} "${hostname}" to policy.allow.`;
  return new AgencyError('network_blocked', message, {
    details: { url: displayUrl(url), host: hostname, reason },
  });
}

/** Prefixes a refusal raised while checking a redirect hop, so the message names the hop that led there. */
export function onRedirect(error: unknown, from: string | undefined): unknown {
  if (from === undefined || !AgencyError.isInstance(error)) return error;
  if (error.code !== 'network_blocked' && error.code !== 'network_invalid_url') return error;
  return new AgencyError(error.code, `Redirect from ${displayUrl(from)} refused. ${error.message}`, {
    cause: error,
    retryable: error.retryable,
    details: { ...error.details, redirectFrom: displayUrl(from) },
  });
}

/** `network_failed` for a socket, TLS or DNS failure, keeping the system error as the cause. */
export function networkFailedError(what: string, cause: unknown): AgencyError {
  const code = (cause as { code?: unknown } | null)?.code;
  const codeText = typeof code === 'string' ? ` (${code})` : '';
  const reason = cause instanceof Error ? cause.message : String(cause);
  // A missing name or a certificate that does not verify will fail the same way next time.
  const permanent = typeof code === 'string' && (code === 'ENOTFOUND' || /CERT|SELF_SIGNED|TLS/.test(code));
  return new AgencyError('network_failed', `${what}: ${reason}${codeText}`, {
    cause,
    ...(permanent ? { retryable: false } : {}),
    details: typeof code === 'string' ? { systemCode: code } : {},
  });
}
