import type { Context, MiddlewareHandler } from 'hono';
import { hostAllowed, originAllowed } from './hosts.ts';
import { errorBody } from '../api/errors.ts';

/** A refusal: `{ error, message, details }` with the code's status. */
export function refuse(
  c: Context,
  code: Parameters<typeof errorBody>[0],
  message: string,
  details: Record<string, unknown> = {},
): Response {
  const answer = errorBody(code, message, details);
  return c.json(answer.body, answer.status as 400);
}

/** Headers every answer carries: no sniffing, no referrer, no framing, and a strict default CSP. */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'no-referrer');
    c.header('x-frame-options', 'DENY');
    if (!c.res.headers.has('content-security-policy'))
      c.header(
        'content-security-policy',
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
      );
  };
}

/**
 * Refuses (403 `forbidden`) a request whose `Host` is not one of `hosts` (DNS rebinding: a page on another name that
 * resolves to this address sends its own name as Host), and one whose `Origin`, when it has one, is not this server
 * (a cross-origin request from a browser). `hostHint` says how to add a name.
 */
export function hostAndOriginGuard(
  hosts: ReadonlySet<string>,
  scheme: 'http' | 'https',
  hostHint: string,
): MiddlewareHandler {
  return async (c, next) => {
    if (!hostAllowed(c.req.header('host'), hosts))
      return refuse(
        c,
        'forbidden',
        `Host "${(c.req.header('host') ?? '').slice(0, 100)}" is not a name this server answers to; ${hostHint}`,
        { field: 'host' },
      );
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== 'null' && !originAllowed(origin, hosts, scheme))
      return refuse(
        c,
        'forbidden',
        `Origin "${origin.slice(0, 100)}" is not this server; cross-origin requests are refused`,
        { field: 'origin' },
      );
    if (origin === 'null') return refuse(c, 'forbidden', 'Origin "null" is refused', { field: 'origin' });
    await next();
  };
}
