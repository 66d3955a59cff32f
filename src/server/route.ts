import type { Context } from 'hono';
import type { z } from 'zod';
import { AgencyError } from '../core/errors.ts';

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
  method: 'get' | 'post';
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

/**
 * Parses a value with a schema, or throws `invalid_argument` naming the first bad field (`where.field: message`),
 * which the API reports as a 400 `validation_error` with `details.field`. An unknown field is named itself
 * (`approvals.sneaky`); a problem with the value as a whole (not an object) is named `whole`.
 */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, where: string, whole = where || 'body'): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  // An unknown field is named itself, not the object that has it (the body's own fields have no path).
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const field = [where, ...path.map(String)].filter(Boolean).join('.') || whole;
  const message =
    issue.code === 'unrecognized_keys'
      ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}`
      : issue.message;
  throw new AgencyError('invalid_argument', `${field}: ${message}`, {
    details: { field, issues: parsed.error.issues.length },
  });
}
