import type { Context } from 'hono';
import type { z } from 'zod';

/** A response a route may give, for the OpenAPI document and for checking responses in tests. */
export type RouteResponse = {
  description: string;
  /** The JSON body's schema; absent for streams, files and empty bodies. */
  schema?: z.ZodType;
  /** @default 'application/json' when there is a schema */
  contentType?: string;
};

/** One route of the API: where it is, what it takes and gives, and its handler. */
export type Route = {
  method: 'get' | 'post' | 'put';
  /** OpenAPI form, e.g. `/agent/tasks/{id}`; a `{path}` parameter spans slashes. */
  path: string;
  summary: string;
  tag: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: { schema: z.ZodType; contentType: 'application/json' } | { contentType: 'multipart/form-data' };
  responses: Record<number, RouteResponse>;
  /** Routes that need no credentials: the login itself. @default true */
  auth?: boolean;
  handler(c: Context, input: RouteInput): Promise<Response>;
};

/** What a handler gets: the route's parameters, query and JSON body, each already validated. */
export type RouteInput = { params: Record<string, string>; query: Record<string, unknown>; body: unknown };

/** Hono's path for an OpenAPI path: `{id}` → `:id`, `{path}` → `:path{.+}`. */
export function honoPath(path: string): string {
  return path.replace(/\{path\}/g, ':path{.+}').replace(/\{(\w+)\}/g, ':$1');
}
