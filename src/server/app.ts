import { Hono } from 'hono';
import type { NamedToken } from '../credentials/bearer-token.ts';
import { errorResponse } from '../service/error-response.ts';
import type { ServiceLogger } from '../service/service-logger.ts';
import type { TaskService } from '../service/task-service.ts';
import type { ApiContext } from './api-route-parts.ts';
import { apiRoutes } from './api-routes.ts';
import { authRoutes } from './auth-routes.ts';
import { authenticate } from './authenticate.ts';
import { dashboardRoutes } from './dashboard.ts';
import { disabledFleet, type Fleet } from './fleet/fleet.ts';
import { loginLimiter } from './login-limiter.ts';
import { type ApiAbout, openApiDocument } from '../http/openapi.ts';
import { registerRoute } from '../http/register-route.ts';
import { hostAndOriginGuard, refuse, securityHeaders } from '../http/request-guards.ts';
import type { Route } from '../http/route.ts';
import { SESSION_COOKIE } from './auth.ts';

/** Options for {@link createServerApp}. */
export type ServerAppOptions = {
  service: TaskService;
  tokens: readonly NamedToken[];
  /** Signs session cookies; keep it secret and stable across restarts. */
  sessionKey: Uint8Array;
  /** The `Host` values the server answers to (see `allowedHosts`). */
  hosts: ReadonlySet<string>;
  scheme: 'http' | 'https';
  logger: ServiceLogger;
  version: string;
  /** The operator policy runs are held to, for `GET /agent/server`. */
  policy: string;
  /** The workers the fleet routes reach (`createFleet`); `startServer` starts and closes it. @default disabledFleet() */
  fleet?: Fleet;
  /** The built dashboard (`web/dist`); without it, `/` explains how to build it. */
  dashboardDir?: string;
  /** @default 1048576 (1 MiB) */
  bodyBytes?: number;
  /** @default 26214400 (25 MiB) */
  uploadBytes?: number;
  /** @default 15000 */
  heartbeatMs?: number;
  /** @default 43200000 (12 h) */
  sessionTtlMs?: number;
  /** Checks every JSON response against its route's schema (tests turn it on). @default false */
  validateResponses?: boolean;
  now?: () => number;
};

const ABOUT: ApiAbout = {
  title: 'agency',
  description:
    'Governed AI agents over HTTP: start tasks, follow their journal live, approve plans and tool calls. ' +
    'Every route but /auth/login needs `Authorization: Bearer <token>` or the session cookie /auth/login sets.',
  sessionCookie: SESSION_COOKIE,
};

/** What the server's middleware tells its handlers: who asks, and how they proved it. */
export type ServerEnv = { Variables: { principal: string; via: 'bearer' | 'session' } };
type Env = ServerEnv;

/**
 * The HTTP API and the dashboard, as a Hono app (`app.request()` runs it without a socket). Every request is checked
 * for its `Host` (DNS rebinding) and, when it has one, its `Origin`; every API route needs a bearer token or a
 * session cookie; a state-changing request made with the cookie must come from this origin (CSRF); bodies are held
 * to size limits. Errors are `{ error, message, details }`.
 */
export function createServerApp(options: ServerAppOptions): Hono<Env> {
  const { service, tokens, sessionKey, hosts, scheme, logger } = options;
  const now = options.now ?? Date.now;
  const bodyBytes = options.bodyBytes ?? 1024 * 1024;
  const uploadBytes = options.uploadBytes ?? 25 * 1024 * 1024;
  const session = {
    tokens,
    sessionKey,
    secure: scheme === 'https',
    ttlMs: options.sessionTtlMs ?? 12 * 3_600_000,
    now,
  };
  const app = new Hono<Env>();
  app.onError((error, c) => {
    const answer = errorResponse(error, logger, `${c.req.method} ${c.req.path}`);
    return c.json(answer.body, answer.status as 400);
  });
  app.notFound((c) => refuse(c, 'not_found', `No route ${c.req.method} ${c.req.path}`));
  app.use('*', securityHeaders());
  app.use('*', hostAndOriginGuard(hosts, scheme, 'start it with --allowed-host to add one'));

  const auth = authenticate({ tokens, sessionKey, hosts, scheme, now });
  const api: ApiContext = {
    service,
    fleet: options.fleet ?? disabledFleet(),
    version: options.version,
    policy: options.policy,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    limits: { bodyBytes, uploadBytes },
  };
  const routes: Route[] = [...authRoutes({ ...session, limiter: loginLimiter(now) }), ...apiRoutes(api)];
  const validate = options.validateResponses === true;
  for (const route of routes) registerRoute(app, route, { authenticate: auth, bodyBytes, uploadBytes, validate });
  app.get('/openapi.json', auth, (c) => c.json(openApiDocument(routes, options.version, ABOUT)));
  dashboardRoutes(app, { dir: options.dashboardDir, ...session });
  return app;
}
