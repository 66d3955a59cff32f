import { bearerOf, matchToken, type NamedToken } from '../credentials/bearer-token.ts';

/** What an HTTP request is checked against before it reaches the MCP transport. */
export type RequestGuard = {
  /** Host names (without port, lower case; IPv6 in brackets) the `Host` header may name. */
  allowedHosts: ReadonlySet<string>;
  /** Origins (`scheme://host[:port]`) a browser may send requests from. Requests without `Origin` are not browsers'. */
  allowedOrigins: ReadonlySet<string>;
  /** When set, every request needs `Authorization: Bearer <token>` with one of these tokens. */
  tokens?: readonly NamedToken[];
};

/** Why a request was refused. */
export type Refusal = { ok: false; status: 403 | 401; message: string };

/** A request let through, with the name of the token it carried (undefined when no tokens are required). */
export type Admission = { ok: true; principal: string | undefined };

/**
 * Checks the `Host` and `Origin` headers (DNS-rebinding protection: a page on `evil.example` that resolves to
 * 127.0.0.1 still sends `Host: evil.example` and its own `Origin`), then the bearer token, compared in constant time
 * as `agency serve` compares it (`matchToken`).
 * @returns the refusal, or the admission with the token's name.
 */
export function checkRequest(
  headers: { host?: string | undefined; origin?: string | undefined; authorization?: string | undefined },
  guard: RequestGuard,
): Refusal | Admission {
  const host = hostnameOf(headers.host);
  if (host === undefined || !guard.allowedHosts.has(host)) {
    const message = `Forbidden: Host ${JSON.stringify((headers.host ?? '').slice(0, 100))} is not allowed`;
    return { ok: false, status: 403, message };
  }
  if (headers.origin !== undefined) {
    const origin = originOf(headers.origin);
    if (origin === undefined || !guard.allowedOrigins.has(origin)) {
      const message = `Forbidden: Origin ${JSON.stringify(headers.origin.slice(0, 100))} is not allowed`;
      return { ok: false, status: 403, message };
    }
  }
  if (guard.tokens === undefined) return { ok: true, principal: undefined };
  const bearer = bearerOf(headers.authorization);
  const principal = bearer === undefined ? undefined : matchToken(bearer, guard.tokens);
  if (principal === undefined)
    return { ok: false, status: 401, message: 'Unauthorized: send "Authorization: Bearer <token>" with a valid token' };
  return { ok: true, principal };
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
