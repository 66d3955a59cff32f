import type { Context } from 'hono';
import { z } from 'zod';
import { errorBodySchema, taskIdSchema } from '../api/schemas.ts';
import type { Principal, TaskService } from '../service/task-service.ts';
import type { RouteResponse } from '../http/route.ts';
import type { Fleet } from './fleet/fleet.ts';

/** What the API routes need from the server. */
export type ApiContext = {
  service: TaskService;
  /** The workers discovery found; calls to them go through it. */
  fleet: Fleet;
  version: string;
  policy: string;
  heartbeatMs: number;
  limits: { bodyBytes: number; uploadBytes: number };
};

/** The `{id}` of a task route. */
export const idParams = z.object({ id: taskIdSchema }).strict();

/** The `?view=` of a result. */
export const viewQuery = z.object({ view: z.enum(['minimal', 'summary', 'full']).optional() }).strict();

const ERROR_TEXT: Record<number, string> = {
  400: 'validation_error: a field is missing or malformed (details.field names it)',
  401: 'unauthorized: no valid token or session',
  403: 'forbidden: wrong Host or Origin, or a cross-site request',
  404: 'not_found',
  409: 'conflict, agent_busy, task_in_progress or already_completed',
  413: 'payload_too_large',
  500: 'internal_error',
  502: 'bad_gateway: the worker did not answer, answered outside its API, or failed on its side',
  503: 'service_unavailable: the worker is starting or stopping',
  504: 'timeout: the worker did not answer in time',
};

/** The error responses a route declares, each with the error body's schema. */
export const errors = (...statuses: number[]): Record<number, RouteResponse> =>
  Object.fromEntries(
    statuses.map((status) => [status, { description: ERROR_TEXT[status] ?? 'error', schema: errorBodySchema }]),
  );

/** Who asks: the principal the authentication middleware found. */
export const principalOf = (c: Context): Principal => ({ name: c.get('principal') as string });
