import { createHash, timingSafeEqual } from 'node:crypto';

/** What an HTTP request is checked against before it reaches the MCP transport. */
export type RequestGuard = {
  /** Host names (without port, lower case; IPv6 in brackets) the `Host` header may name. */
  allowedHosts: ReadonlySet<string>;
  /** Origins (`scheme://host[:port]`) a browser may send requests from. Requests without `Origin` are not browsers'. */
  allowedOrigins: ReadonlySet<string>;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
};

/** Why a request was refused. */
export type Refusal = { status: 403 | 401; message: string };

/**
 * Checks the `Host` and `Origin` headers (DNS-rebinding protection: a page on `evil.example` that resolves to
 * 127.0.0.1 still sends `Host: evil.example` and its own `Origin`), then the bearer token.
 * @returns the refusal, or undefined when the request may proceed.
 */
export function checkRequest(
  headers: { host?: string | undefined; origin?: string | undefined; authorization?: string | undefined },
  guard: RequestGuard,
): Refusal | undefined {
  const host = hostnameOf(headers.host);
  if (host === undefined || !guard.allowedHosts.has(host)) {
    return { status: 403, message: `Forbidden: Host ${JSON.stringify(headers.host ?? '')} is not allowed` };
  }
  if (headers.origin !== undefined) {
    const origin = originOf(headers.origin);
    if (origin === undefined || !guard.allowedOrigins.has(origin)) {
      return { status: 403, message: `Forbidden: Origin ${JSON.stringify(headers.origin)} is not allowed` };
    }
  }
  if (guard.token !== undefined && !bearerMatches(headers.authorization, guard.token)) {
    return { status: 401, message: 'Unauthorized: send "Authorization: Bearer <token>"' };
  }
  return undefined;
}

/** The host name of a `Host` header value, lower case, without the port; undefined when malformed. */
export function hostnameOf(host: string | undefined): string | undefined {
  if (!host || /[\s/?#@\\]/.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** An origin in canonical form (`http://127.0.0.1:3000`); undefined for `null` and malformed values. */
export function originOf(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  // Hashing first makes the comparison constant-time whatever the lengths.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), digest(token));
}
