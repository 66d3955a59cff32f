import { AgencyError } from '../core/errors.ts';
import { type NamePatterns, nameMatcher } from './glob.ts';
import type { PolicyRequest, PolicyRule } from './policy-types.ts';

/** Options for {@link domainAllowlist}. */
export type DomainAllowlistOptions = {
  /** Exact hosts (`api.github.com`) or `*.suffix` (subdomains only, not the apex), as in the network guard. */
  domains: readonly string[];
  /** The tools checked. @default every tool with `network` effects */
  tools?: NamePatterns;
  /** The argument fields that hold URLs (a string or a list of strings). @default ['url', 'urls'] */
  urlFields?: readonly string[];
  /** What to do with a checked tool call that has none of `urlFields`. @default 'deny' */
  onMissingUrl?: 'deny' | 'allow';
  /** @default 'domain-allowlist' */
  id?: string;
};

/**
 * Denies calls of network tools whose URL argument points at a host outside `domains`. Only `http:` and `https:`
 * URLs pass. This checks the host the model asked for; the network guard still checks where it resolves.
 *
 * @throws AgencyError `invalid_argument` naming a malformed domain entry.
 * @example
 * domainAllowlist({ domains: ['api.github.com', '*.example.com'] })
 */
export function domainAllowlist({
  domains,
  tools,
  urlFields = ['url', 'urls'],
  onMissingUrl = 'deny',
  id = 'domain-allowlist',
}: DomainAllowlistOptions): PolicyRule {
  const entries = domains.map((entry, index) => parseDomain(entry, `${id}.domains[${index}]`));
  const checked = tools === undefined ? undefined : nameMatcher(tools);
  const allowedHost = (host: string) =>
    entries.some(({ domain, wildcard }) => (wildcard ? host.endsWith(`.${domain}`) : host === domain));
  return {
    id,
    check(request) {
      if (request.kind !== 'tool-call') return undefined;
      const { name, effects } = request.tool;
      if (checked ? !checked(name) : effects !== 'network') return undefined;
      const urls = urlsOf(request, urlFields);
      if (urls.length === 0) {
        return onMissingUrl === 'allow'
          ? undefined
          : {
              effect: 'deny',
              reason: `tool "${name}" has no ${urlFields.join('/')} argument to check against the domain allowlist`,
            };
      }
      for (const text of urls) {
        const host = hostOf(text);
        if (host === undefined)
          return { effect: 'deny', reason: `tool "${name}" was given a URL that is not a valid http(s) URL` };
        if (!allowedHost(host))
          return { effect: 'deny', reason: `host "${host}" is not in the domain allowlist for tool "${name}"` };
      }
      return undefined;
    },
  };
}

function urlsOf(request: Extract<PolicyRequest, { kind: 'tool-call' }>, fields: readonly string[]): string[] {
  const input = request.input;
  if (typeof input !== 'object' || input === null) return [];
  const urls: string[] = [];
  for (const field of fields) {
    const value = (input as Record<string, unknown>)[field];
    if (typeof value === 'string') urls.push(value);
    else if (Array.isArray(value)) urls.push(...value.map(String));
  }
  return urls;
}

function hostOf(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
}

function parseDomain(entry: string, field: string): { domain: string; wildcard: boolean } {
  const wildcard = entry.startsWith('*.');
  const domain = (wildcard ? entry.slice(2) : entry).toLowerCase().replace(/\.$/, '');
  if (domain === '' || /[/:@*\s]/.test(domain))
    throw new AgencyError(
      'invalid_argument',
      `${field} "${entry}": write a host ("api.example.com") or a suffix ("*.example.com"), not a URL`,
      { details: { field } },
    );
  return { domain, wildcard };
}
