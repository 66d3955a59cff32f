import { Hono } from 'hono';
import type { NamedToken } from '../credentials/bearer-token.ts';
import { requireBearer } from '../http/bearer-auth.ts';
import { type ApiAbout, openApiDocument } from '../http/openapi.ts';
import { registerRoute } from '../http/register-route.ts';
import { hostAndOriginGuard, refuse, securityHeaders } from '../http/request-guards.ts';
import type { Route } from '../http/route.ts';
import { errorResponse } from '../service/error-response.ts';
import type { ServiceLogger } from '../service/service-logger.ts';

/** Options for {@link createComponentApp}. */
export type ComponentAppOptions = {
  routes: Route[];
  /** The OpenAPI document's title and description; `what` names the component in errors ("worker", "director"). */
  about: ApiAbout & { what: string };
  /** The `Host` values the component answers to (DNS rebinding). */
  hosts: ReadonlySet<string>;
  /** Bearer tokens; required on every route when given (a component bound beyond loopback), none otherwise. */
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

/**
 * A fleet component's HTTP API (a worker's, a director's) as a Hono app (`app.request()` runs it without a socket),
 * built from the same pieces as `agency serve`: the Host/Origin guard, security headers, body limits, routes
 * validated with their zod schemas, errors as `{ error, message, details: { retryable, … } }` with seed 004's codes
 * and statuses, constant-time bearer tokens when the component is reachable beyond loopback, and `/openapi.json`.
 */
export function createComponentApp(options: ComponentAppOptions): Hono {
  const { hosts, tokens, logger, about } = options;
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
  app.use('*', hostAndOriginGuard(hosts, 'http', `use the address the ${about.what} is bound to`));
  const authenticate = tokens ? requireBearer(tokens, `This ${about.what} is reachable beyond loopback`) : undefined;
  for (const route of options.routes)
    registerRoute(app, route, {
      authenticate,
      bodyBytes: options.bodyBytes ?? 1024 * 1024,
      uploadBytes: 0,
      validate: options.validateResponses === true,
    });
  const document = openApiDocument(options.routes, options.version, {
    title: about.title,
    description: about.description,
  });
  if (authenticate) app.get('/openapi.json', authenticate, (c) => c.json(document));
  else app.get('/openapi.json', (c) => c.json(document));
  return app;
}
