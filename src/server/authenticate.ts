import type { MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { bearerOf, matchToken, type NamedToken } from '../credentials/bearer-token.ts';
import type { ServerEnv } from './app.ts';
import { originAllowed } from '../http/hosts.ts';
import { SESSION_COOKIE, verifySession } from './auth.ts';
import { refuse } from '../http/request-guards.ts';

/** What {@link authenticate} checks credentials against. */
export type AuthenticateOptions = {
  tokens: readonly NamedToken[];
  sessionKey: Uint8Array;
  hosts: ReadonlySet<string>;
  scheme: 'http' | 'https';
  now: () => number;
};

/**
 * Lets through a request with a valid bearer token or session cookie, setting who asks (`principal`) and how (`via`);
 * a change made with the cookie must come from this server's own pages (CSRF).
 */
export function authenticate(options: AuthenticateOptions): MiddlewareHandler<ServerEnv> {
  const { tokens, sessionKey, hosts, scheme, now } = options;
  return async (c, next) => {
    const bearer = bearerOf(c.req.header('authorization'));
    if (bearer !== undefined) {
      const name = matchToken(bearer, tokens);
      if (!name) return refuse(c, 'unauthorized', 'The bearer token is not valid', { scheme: 'bearer' });
      c.set('principal', name);
      c.set('via', 'bearer');
      return next();
    }
    const name = verifySession(getCookie(c, SESSION_COOKIE), sessionKey, now());
    if (!name)
      return refuse(c, 'unauthorized', 'Sign in: send "Authorization: Bearer <token>", or log in at /auth/login', {
        scheme: 'bearer',
      });
    // A browser sends the cookie with any request, even one another site makes: changes need this origin.
    if (!['GET', 'HEAD', 'OPTIONS'].includes(c.req.method) && !originAllowed(c.req.header('origin'), hosts, scheme))
      return refuse(
        c,
        'forbidden',
        "A change made with the session cookie must come from this server's own pages (Origin)",
        {
          field: 'origin',
        },
      );
    c.set('principal', name);
    c.set('via', 'session');
    return next();
  };
}
