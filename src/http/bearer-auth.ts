import type { MiddlewareHandler } from 'hono';
import { bearerOf, matchToken, type NamedToken } from '../credentials/bearer-token.ts';
import { refuse } from './request-guards.ts';

/**
 * Lets through only a request with `Authorization: Bearer <token>` naming one of `tokens` (compared in constant time,
 * as `agency serve` compares them); anything else gets 401 `unauthorized`, whose message says what to send.
 */
export function requireBearer(tokens: readonly NamedToken[], why: string): MiddlewareHandler {
  return async (c, next) => {
    const bearer = bearerOf(c.req.header('authorization'));
    if (bearer === undefined || !matchToken(bearer, tokens))
      return refuse(
        c,
        'unauthorized',
        bearer === undefined ? `${why}: send "Authorization: Bearer <token>"` : 'The bearer token is not valid',
        { scheme: 'bearer' },
      );
    return next();
  };
}
