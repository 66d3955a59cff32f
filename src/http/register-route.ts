import type { Env, Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorBody } from '../api/errors.ts';
import { parseInput } from '../api/parse-input.ts';
import { honoPath, type Route } from './route.ts';

/** How {@link registerRoute} guards a route. */
export type RegisterOptions<E extends Env> = {
  /** Runs first on every route whose `auth` is not false; absent, no route needs credentials. */
  authenticate?: MiddlewareHandler<E> | undefined;
  bodyBytes: number;
  uploadBytes: number;
  /** Checks each JSON answer against the route's declared schema (tests turn it on). */
  validate: boolean;
};

/**
 * Adds a {@link Route} to a Hono app: its credentials check, a body size limit (413 `payload_too_large`), JSON
 * parsing (400 `validation_error` with `details.field: "body"`, 415 for another content type), and its params,
 * query and body validated with its schemas before the handler runs (400 naming the first bad field).
 */
export function registerRoute<E extends Env>(app: Hono<E>, route: Route, options: RegisterOptions<E>): void {
  const { authenticate, bodyBytes, uploadBytes, validate } = options;
  const limit = route.body?.contentType === 'multipart/form-data' ? uploadBytes : bodyBytes;
  const handlers: MiddlewareHandler<E>[] = [];
  if (route.auth !== false && authenticate) handlers.push(authenticate);
  if (route.method !== 'get')
    handlers.push(
      bodyLimit({
        maxSize: limit,
        onError: (c) =>
          c.json(
            errorBody('payload_too_large', `The body is over the ${limit}-byte limit of this route`, { limit }).body,
            413,
          ),
      }),
    );
  app.on(route.method.toUpperCase(), [honoPath(route.path)], ...handlers, async (c) => {
    const params = route.params ? parseInput(route.params, c.req.param(), 'path') : {};
    const query = route.query ? parseInput(route.query, c.req.query(), 'query') : {};
    let input: unknown;
    if (route.body?.contentType === 'application/json') {
      const type = c.req.header('content-type') ?? '';
      const text = await c.req.text();
      if (text.trim() === '') input = {};
      else if (!type.startsWith('application/json'))
        return c.json(
          errorBody('unsupported_media_type', 'Send the body as application/json', { field: 'content-type' }).body,
          415,
        );
      else {
        try {
          input = JSON.parse(text);
        } catch {
          return c.json(errorBody('validation_error', 'body: not valid JSON', { field: 'body' }).body, 400);
        }
      }
      input = parseInput(route.body.schema, input, '');
    }
    const response = await route.handler(c, {
      params: params as Record<string, string>,
      query: query,
      body: input,
    });
    if (validate) await checkResponse(route, response);
    return response;
  });
}

// Tests run with this on: a JSON answer that does not match its route's schema is a bug, reported as one.
async function checkResponse(route: Route, response: Response): Promise<void> {
  const declared = route.responses[response.status];
  if (!declared)
    throw new Error(`${route.method} ${route.path} answered ${response.status}, which it does not declare`);
  if (!declared.schema) return;
  const parsed = declared.schema.safeParse(await response.clone().json());
  if (!parsed.success)
    throw new Error(
      `${route.method} ${route.path} ${response.status}: the body does not match its schema: ${parsed.error.message}`,
    );
}
