import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import { errorBodySchema } from '../api/schemas.ts';
import { matchToken, type NamedToken } from '../credentials/bearer-token.ts';
import { SESSION_COOKIE, signSession } from './auth.ts';
import { errorBody } from '../api/errors.ts';
import type { Route } from '../http/route.ts';

/** Counts failed logins per client address. */
export type LoginLimiter = { allowed(address: string): boolean; failed(address: string): void };

/** What the login routes need. */
export type SessionOptions = {
  tokens: readonly NamedToken[];
  sessionKey: Uint8Array;
  secure: boolean;
  ttlMs: number;
  now: () => number;
};

/** Sets the session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Secure on TLS. */
export function startSession(c: Context, name: string, { sessionKey, secure, ttlMs, now }: SessionOptions): void {
  setCookie(c, SESSION_COOKIE, signSession(name, now() + ttlMs, sessionKey), {
    httpOnly: true,
    sameSite: 'Strict',
    secure,
    path: '/',
    maxAge: Math.floor(ttlMs / 1000),
  });
}

/** The address a request came from, for counting failed logins. */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'local';
  }
}

/** `POST /auth/login` (a token in, a session cookie out), `POST /auth/logout`, `GET /auth/session`. */
export function authRoutes(options: SessionOptions & { limiter: LoginLimiter }): Route[] {
  const { tokens, limiter } = options;
  return [
    {
      method: 'post',
      path: '/auth/login',
      summary:
        'Exchanges the token for a session cookie (HttpOnly, SameSite=Strict), so a browser and EventSource need no token in URLs',
      tag: 'auth',
      auth: false,
      body: { schema: z.object({ token: z.string().min(1).max(512) }).strict(), contentType: 'application/json' },
      responses: {
        204: { description: 'logged in; the cookie is set' },
        400: { description: 'validation_error', schema: errorBodySchema },
        401: { description: 'unauthorized: the token is not valid', schema: errorBodySchema },
        429: { description: 'rate_limited: too many failed logins from this address', schema: errorBodySchema },
      },
      handler: async (c, input) => {
        const address = clientAddress(c);
        if (!limiter.allowed(address)) {
          const answer = errorBody('rate_limited', 'Too many failed logins; wait a minute', {});
          return c.json(answer.body, 429);
        }
        const name = matchToken((input.body as { token: string }).token, tokens);
        if (!name) {
          limiter.failed(address);
          const answer = errorBody('unauthorized', 'The token is not valid', { field: 'token' });
          return c.json(answer.body, 401);
        }
        startSession(c, name, options);
        return c.body(null, 204);
      },
    },
    {
      method: 'post',
      path: '/auth/logout',
      summary: 'Ends the browser session',
      tag: 'auth',
      responses: { 204: { description: 'logged out' }, 401: { description: 'unauthorized', schema: errorBodySchema } },
      handler: async (c) => {
        deleteCookie(c, SESSION_COOKIE, { path: '/', secure: options.secure });
        return c.body(null, 204);
      },
    },
    {
      method: 'get',
      path: '/auth/session',
      summary: 'Who the session or token belongs to',
      tag: 'auth',
      responses: {
        200: { description: 'the principal', schema: z.object({ principal: z.string() }).strict() },
        401: { description: 'unauthorized', schema: errorBodySchema },
      },
      handler: async (c) => c.json({ principal: c.get('principal') as string }),
    },
  ];
}
