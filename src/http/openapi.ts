import { z } from 'zod';
import type { Route } from './route.ts';

type JsonSchema = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
};

/** What an OpenAPI document says of its API as a whole. */
export type ApiAbout = {
  title: string;
  description: string;
  /** The session cookie browsers may use instead of a bearer token, when the API has one. */
  sessionCookie?: string;
};

/**
 * The OpenAPI 3.1 document of the API, generated from the same zod schemas the server validates with (JSON Schema
 * 2020-12, which OpenAPI 3.1 uses as is). Every route is in it, with its parameters, body and responses.
 */
export function openApiDocument(routes: readonly Route[], version: string, about: ApiAbout): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: { title: about.title, version, description: about.description },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        ...(about.sessionCookie ? { session: { type: 'apiKey', in: 'cookie', name: about.sessionCookie } } : {}),
      },
    },
    security: about.sessionCookie ? [{ bearer: [] }, { session: [] }] : [{ bearer: [] }],
    paths,
  };
}

function operation(route: Route): Record<string, unknown> {
  const parameters = [...fields(route.params, 'path'), ...fields(route.query, 'query')];
  const op: Record<string, unknown> = {
    operationId: `${route.method}${route.path
      .replace(/[{}]/g, '')
      .replace(/\/(\w)/g, (_, c: string) => c.toUpperCase())
      .replace(/\W/g, '')}`,
    summary: route.summary,
    tags: [route.tag],
    ...(route.auth === false ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: Object.fromEntries(
      Object.entries(route.responses).map(([status, response]) => [
        status,
        {
          description: response.description,
          ...(response.schema
            ? {
                content: {
                  [response.contentType ?? 'application/json']: { schema: toSchema(response.schema, 'output') },
                },
              }
            : response.contentType
              ? { content: { [response.contentType]: {} } }
              : {}),
        },
      ]),
    ),
  };
  if (route.body?.contentType === 'application/json')
    op.requestBody = {
      required: false,
      content: { 'application/json': { schema: toSchema(route.body.schema, 'input') } },
    };
  if (route.body?.contentType === 'multipart/form-data')
    op.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: { files: { type: 'array', items: { type: 'string', format: 'binary' } } },
          },
        },
      },
    };
  return op;
}

function fields(schema: z.ZodObject | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const json = toSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: property,
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
  }));
}
