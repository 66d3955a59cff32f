import { Hono } from 'hono';
import type { NamedToken } from '../../credentials/bearer-token.ts';
import { requireBearer } from '../../http/bearer-auth.ts';
import { errorResponse } from '../../service/error-response.ts';
import { type ApiAbout, openApiDocument } from '../../http/openapi.ts';
import { registerRoute } from '../../http/register-route.ts';
import { hostAndOriginGuard, refuse, securityHeaders } from '../../http/request-guards.ts';
import type { ServiceLogger } from '../../service/service-logger.ts';
import { type WorkerRouteContext, workerRoutes } from './worker-routes.ts';

/** Options for {@link createWorkerApp}. */
export type WorkerAppOptions = WorkerRouteContext & {
  /** The `Host` values the worker answers to (DNS rebinding). */
  hosts: ReadonlySet<string>;
  /** Bearer tokens; required on every route when given (a worker bound beyond loopback), none otherwise. */
  tokens?: readonly NamedToken[] | undefined;
  logger: ServiceLogger;
  version: string;
  /** @default 1048576 (1 MiB) */
  bodyBytes?: number;
  /** Checks every JSON answer against its route's schema (tests turn it on). @default false */
  validateResponses?: boolean;
};

// Seed 004 shows these next to `error` and `message`; they are in `details` too, like every other fact.
const TOP_LEVEL = ['current_task', 'task_id', 'final_state'] as const;

const ABOUT: ApiAbout = {
  title: 'agency worker',
  description:
    'An agent daemon (seed 004, appendix A): one task at a time, sessions continued or ended, history. Bound to ' +
    'loopback it needs no token; bound elsewhere every route needs `Authorization: Bearer <token>`.',
};

/**
 * A worker's HTTP API as a Hono app (`app.request()` runs it without a socket), built from the same pieces as
 * `agency serve`: the Host/Origin guard, security headers, body limits, routes validated with their zod schemas,
 * errors as `{ error, message, details: { retryable, … } }` with seed 004's codes and statuses, and constant-time
 * bearer tokens when the worker is reachable beyond loopback.
 */
export function createWorkerApp(options: WorkerAppOptions): Hono {
  const { hosts, tokens, logger } = options;
  const app = new Hono();
  app.onError((error, c) => {
    const answer = errorResponse(error, logger, `${c.req.method} ${c.req.path}`);
    const extra = Object.fromEntries(
      TOP_LEVEL.filter((key) => key in answer.body.details).map((key) => [key, answer.body.details[key]]),
    );
    return c.json({ ...answer.body, ...extra }, answer.status as 400);
  });
  app.notFound((c) => refuse(c, 'not_found', `No route ${c.req.method} ${c.req.path}`));
  app.use('*', securityHeaders());
  app.use('*', hostAndOriginGuard(hosts, 'http', 'use the address the worker is bound to'));
  const authenticate = tokens ? requireBearer(tokens, 'This worker is reachable beyond loopback') : undefined;
  const routes = workerRoutes(options);
  for (const route of routes)
    registerRoute(app, route, {
      authenticate,
      bodyBytes: options.bodyBytes ?? 1024 * 1024,
      uploadBytes: 0,
      validate: options.validateResponses === true,
    });
  const document = openApiDocument(routes, options.version, ABOUT);
  if (authenticate) app.get('/openapi.json', authenticate, (c) => c.json(document));
  else app.get('/openapi.json', (c) => c.json(document));
  return app;
}
