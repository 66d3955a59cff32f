import { z } from 'zod';
import { fleetTaskListSchema } from '../../api/fleet-schemas.ts';
import { AgencyError } from '../../core/errors.ts';
import { workerTaskIdSchema } from '../../fleet/api/worker-schemas.ts';
import { type ApiContext, errors } from '../api-route-parts.ts';
import { eventStream, resumeAfter } from '../event-stream.ts';
import type { Route } from '../../http/route.ts';
import type { Fleet } from './fleet.ts';
import type { FleetTaskFeed } from './fleet-task-feed.ts';

const taskParams = z.object({ id: workerTaskIdSchema }).strict();
const listQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }).strict();

/** `GET /agent/fleet/tasks`: the newest tasks of the fleet's database (AGENCY_DATABASE_URL). */
export const fleetTasksRoute = ({ fleet }: ApiContext): Route => ({
  method: 'get',
  path: '/agent/fleet/tasks',
  summary:
    "The newest tasks of the fleet's database (agency.tasks), newest first, on any worker (limit 50, at most 200); " +
    '404 without AGENCY_DATABASE_URL, 503 when the database cannot be reached',
  tag: 'fleet',
  query: listQuery,
  responses: { 200: { description: 'the tasks', schema: fleetTaskListSchema }, ...errors(400, 401, 404, 503) },
  handler: async (c, { query }) => {
    const { limit } = query as z.output<typeof listQuery>;
    return c.json({ items: await feedOf(fleet).list(limit) });
  },
});

/** `GET /agent/fleet/tasks/{id}/events`: a fleet task's events from the database, live, resumable. */
export const fleetTaskEventsRoute = ({ fleet, heartbeatMs }: ApiContext): Route => ({
  method: 'get',
  path: '/agent/fleet/tasks/{id}/events',
  summary:
    "A fleet task's events as its worker wrote them to agency.task_history, as agent.events.v1 frames: SSE with " +
    '`Accept: text/event-stream`, NDJSON otherwise; resumes after `Last-Event-ID` or `?after=` (the row seq)',
  tag: 'fleet',
  params: taskParams,
  query: z.object({ after: z.string().max(16).optional() }).strict(),
  responses: {
    200: {
      description: 'a stream of frames, each SSE event id the seq; `event: end` once the task is final',
      contentType: 'text/event-stream',
    },
    ...errors(400, 401, 404, 503),
  },
  handler: async (c, { params, query }) => {
    const after = resumeAfter(c.req.header('last-event-id'), query.after as string | undefined);
    if (Number.isNaN(after))
      throw new AgencyError('invalid_argument', 'after: must be a seq (a non-negative integer)', {
        details: { field: 'after' },
      });
    const sse = (c.req.header('accept') ?? '').includes('text/event-stream');
    const controller = new AbortController();
    c.req.raw.signal.addEventListener('abort', () => controller.abort(), { once: true });
    const frames = await feedOf(fleet).frames(params.id!, after ?? 0, controller.signal);
    return new Response(eventStream(frames, { format: sse ? 'sse' : 'ndjson', heartbeatMs, controller }), {
      headers: {
        'content-type': sse ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      },
    });
  },
});

function feedOf(fleet: Fleet): FleetTaskFeed {
  if (fleet.tasks) return fleet.tasks;
  throw new AgencyError(
    'task_not_found',
    "The fleet's tasks are in its PostgreSQL database, and this server runs without one: start agency serve with " +
      'AGENCY_DATABASE_URL set, as its workers are',
    { details: { field: 'AGENCY_DATABASE_URL' } },
  );
}
