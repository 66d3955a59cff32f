// The host's routes, the same for every kind of director: the universal `/status` and `/shutdown`, `/history`,
// `/history/:id` and `/agents` (seed 004, "API Design").
import { z } from 'zod';
import { errorBodySchema } from '../../../api/schemas.ts';
import { AgencyError } from '../../../core/errors.ts';
import type { Route } from '../../../http/route.ts';
import {
  directorAgentsSchema,
  directorEntryIdSchema,
  directorEntrySchema,
  directorHistoryPageSchema,
  type DirectorAgent,
} from '../../api/director-schemas.ts';
import {
  shutdownRequestSchema,
  shutdownResponseSchema,
  statusSchema,
  type WorkerStatus,
} from '../../api/worker-schemas.ts';
import type { HistoryIndex } from './director-history.ts';

/** What the host's routes read. */
export type DirectorRouteContext = {
  status(): WorkerStatus;
  history: HistoryIndex;
  agents(): DirectorAgent[];
  /** Begins a shutdown: new work stops at once, work in flight gets `drainMs`. */
  shutdown(drainMs: number): void;
};

const historyQuery = z
  .object({
    page: z.coerce.number().int().positive().max(1_000_000).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
const idParams = z.object({ id: directorEntryIdSchema }).strict();

/** Error answers a director's route may give, for the OpenAPI document: 401/403/500 and `more`. */
export function directorErrors(...more: number[]): Route['responses'] {
  const text: Record<number, string> = {
    400: 'validation_error: a field is missing or malformed (details.field names it)',
    401: 'unauthorized: no valid token (only when the director is bound beyond loopback)',
    403: 'forbidden: wrong Host or Origin',
    404: 'not_found',
    409: 'conflict: the name is taken, or the workdir is locked',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
    500: 'internal_error',
  };
  return Object.fromEntries(
    [401, 403, 500, ...more].map((status) => [status, { description: text[status]!, schema: errorBodySchema }]),
  );
}

/** The host's routes. */
export function directorRoutes({ status, history, agents, shutdown }: DirectorRouteContext): Route[] {
  return [
    {
      method: 'get',
      path: '/status',
      summary: 'What this director is, its state, its current work, its config and its recent lifecycle lines',
      tag: 'status',
      responses: { 200: { description: 'the status', schema: statusSchema }, ...directorErrors() },
      handler: async (c) => c.json(status()),
    },
    {
      method: 'post',
      path: '/shutdown',
      summary: 'Start nothing new, let work in flight finish for timeout_seconds (0 with force), persist, and exit',
      tag: 'status',
      body: { schema: shutdownRequestSchema, contentType: 'application/json' },
      responses: {
        202: { description: 'shutting down', schema: shutdownResponseSchema },
        ...directorErrors(400, 413, 415),
      },
      handler: async (c, { body }) => {
        const { timeout_seconds: drain = 30, force = false } = body as z.output<typeof shutdownRequestSchema>;
        const drainSeconds = force ? 0 : drain;
        shutdown(drainSeconds * 1000);
        return c.json({ message: 'Shutdown initiated', drain_timeout: drainSeconds }, 202);
      },
    },
    {
      method: 'get',
      path: '/history',
      summary: "The director's work, newest first, without logs (page from 1; limit 20 by default, at most 100)",
      tag: 'history',
      query: historyQuery,
      responses: { 200: { description: 'a page', schema: directorHistoryPageSchema }, ...directorErrors(400) },
      handler: async (c, { query }) => {
        const { page, limit } = query as z.output<typeof historyQuery>;
        return c.json({ ...history.page(page, limit), page, limit });
      },
    },
    {
      method: 'get',
      path: '/history/{id}',
      summary: 'One piece of work in full: its task on a worker, the result and what happened',
      tag: 'history',
      params: idParams,
      responses: { 200: { description: 'the entry', schema: directorEntrySchema }, ...directorErrors(400, 404) },
      handler: async (c, { params }) => {
        const entry = await history.read(params.id!);
        if (!entry) throw new AgencyError('entry_not_found', `No history entry ${params.id}; GET /history lists them`);
        return c.json(entry);
      },
    },
    {
      method: 'get',
      path: '/agents',
      summary: 'The workers this director sees, with their health',
      tag: 'agents',
      responses: { 200: { description: 'the workers', schema: directorAgentsSchema }, ...directorErrors() },
      handler: async (c) => c.json({ items: agents() }),
    },
  ];
}
