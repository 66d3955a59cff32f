import { abortedError } from '../../core/clock.ts';
import { AgencyError } from '../../core/errors.ts';
import { displayUrl, invalidUrlError, onRedirect } from './network-errors.ts';
import { type NetworkPolicy, type ResolvedPolicy, resolvePolicy } from './network-policy.ts';
import { sendHop } from './network-request.ts';
import { type NetworkLookup, resolveTarget, systemLookup } from './network-resolve.ts';
import { checkTarget, type UrlTarget } from './network-url.ts';

/** The methods {@link guardedFetch} sends. CONNECT and TRACE are not among them. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** Options for {@link guardedFetch}. */
export type GuardedFetchOptions = {
  /** @default 'GET' */
  method?: HttpMethod | undefined;
  /** Request headers. Host, Content-Length and hop-by-hop headers are set by the guard and refused here. */
  headers?: Record<string, string> | undefined;
  /** Request body; not allowed with GET or HEAD. */
  body?: string | Uint8Array | undefined;
  policy?: NetworkPolicy | undefined;
  /** @default systemLookup, i.e. `dns.promises.lookup(hostname, { all: true })` */
  lookup?: NetworkLookup | undefined;
  signal?: AbortSignal | undefined;
};

/** The final response of {@link guardedFetch}. */
export type GuardedResponse = {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The raw body bytes, not decompressed. */
  body: Uint8Array;
  /** The URL that gave this response, after redirects. */
  url: string;
  /** Every URL that answered with a redirect, in order; `[...redirects, url]` is the whole chain. */
  redirects: string[];
  /** The IP address the final response came from. */
  remoteAddress: string;
};

const METHODS = new Set<string>(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const GUARD_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'expect',
]);
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * Fetches a URL under the network guard. Every hop is checked (scheme, credentials, host), resolved once, refused if
 * any DNS answer is a blocked address, and connected to the exact address that was checked, so DNS rebinding cannot
 * swap it. Redirects are followed by hand up to `policy.maxRedirects`. The body is capped at `policy.maxBytes` and
 * the whole exchange at `policy.timeoutMs`.
 *
 * Throws `network_invalid_url`, `network_blocked`, `network_too_many_redirects`, `network_response_too_large`,
 * `network_failed`, `timeout`, `aborted` or `invalid_argument`.
 *
 * @example
 * const res = await guardedFetch('https://example.com/', { policy: { maxBytes: 1_000_000 } });
 * new TextDecoder().decode(res.body);
 */
export async function guardedFetch(url: string | URL, options: GuardedFetchOptions = {}): Promise<GuardedResponse> {
  const { method = 'GET', headers = {}, body, lookup = systemLookup, signal } = options;
  const policy = resolvePolicy(options.policy);
  const request = { method, headers: checkHeaders(headers), body };
  checkMethod(method, body);
  if (signal?.aborted) throw abortedError(signal);
  let current = String(url);
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    const message = `Network request to ${displayUrl(current)} did not finish within ${policy.timeoutMs} ms.`;
    deadline.abort(
      new AgencyError('timeout', `${message} Raise policy.timeoutMs if slower servers are intended.`, {
        details: { url: displayUrl(current), timeoutMs: policy.timeoutMs },
      }),
    );
  }, policy.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
  try {
    return await follow(url, request, policy, lookup, combined, (href) => {
      current = href;
    });
  } finally {
    clearTimeout(timer);
  }
}

type Request = { method: string; headers: Record<string, string>; body: string | Uint8Array | undefined };

async function follow(
  url: string | URL,
  first: Request,
  policy: ResolvedPolicy,
  lookup: NetworkLookup,
  signal: AbortSignal,
  onHop: (href: string) => void,
): Promise<GuardedResponse> {
  let target = checkTarget(url, policy.allowlist, policy.maxUrlLength);
  let request = first;
  const redirects: string[] = [];
  for (;;) {
    onHop(target.url.href);
    const pinned = await resolveTarget(target, policy.allowlist, lookup, signal).catch((error: unknown) => {
      throw onRedirect(error, redirects.at(-1));
    });
    const hop = await sendHop({ target, pinned, ...request, maxBytes: policy.maxBytes, signal });
    if (hop.location === undefined) {
      const { status, headers, body, remoteAddress } = hop;
      return { status, headers, body, url: target.url.href, redirects, remoteAddress };
    }
    if (redirects.length >= policy.maxRedirects) throw tooManyRedirects(target, policy.maxRedirects);
    redirects.push(target.url.href);
    const next = nextTarget(target, hop.location, policy);
    request = rewriteForRedirect(request, hop.status, target.url, next.url);
    target = next;
  }
}

function nextTarget(current: UrlTarget, location: string, policy: ResolvedPolicy): UrlTarget {
  try {
    return checkTarget(new URL(location, current.url), policy.allowlist, policy.maxUrlLength);
  } catch (error) {
    const invalid = AgencyError.isInstance(error)
      ? error
      : invalidUrlError(location, 'the redirect Location is not a valid URL', 'The server sent a broken redirect.');
    throw onRedirect(invalid, current.url.href);
  }
}

// Browser semantics: 303 turns into GET, and so do 301/302 after a POST; 307/308 resend the same request.
// Credentials never follow a redirect to another origin.
function rewriteForRedirect(request: Request, status: number, from: URL, to: URL): Request {
  const toGet =
    (status === 303 && request.method !== 'HEAD') || ((status === 301 || status === 302) && request.method === 'POST');
  const headers = { ...request.headers };
  if (toGet) delete headers['content-type'];
  if (from.origin !== to.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
  return toGet ? { method: 'GET', headers, body: undefined } : { ...request, headers };
}

function tooManyRedirects(target: UrlTarget, max: number): AgencyError {
  const url = displayUrl(target.url);
  return new AgencyError(
    'network_too_many_redirects',
    `Network guard stopped at ${url}: it redirects again after ${max} redirects. ` +
      'Raise policy.maxRedirects if longer chains are intended.',
    { details: { url, maxRedirects: max } },
  );
}

function checkHeaders(headers: Record<string, string>): Record<string, string> {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (GUARD_HEADERS.has(key)) {
      throw new AgencyError(
        'invalid_argument',
        `headers["${name}"] cannot be set: the network guard sets it so that it always matches the checked URL ` +
          'and body. Remove it.',
        { details: { field: `headers.${name}` } },
      );
    }
    lower[key] = value;
  }
  return lower;
}

function checkMethod(method: string, body: unknown): void {
  if (!METHODS.has(method)) {
    throw new AgencyError(
      'invalid_argument',
      `method "${method}" is not allowed; use one of ${[...METHODS].join(', ')}.`,
      {
        details: { field: 'method' },
      },
    );
  }
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) {
    throw new AgencyError('invalid_argument', `A ${method} request cannot carry a body; use POST or PUT.`, {
      details: { field: 'body' },
    });
  }
}
