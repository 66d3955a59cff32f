import { z } from 'zod';
import {
  fleetTaskActionSchema,
  fleetTaskListSchema,
  fleetTaskQueuedSchema,
  type FleetQueueRequest,
  fleetQueueRequestSchema,
} from '../../api/fleet-schemas.ts';
import { AgencyError } from '../../core/errors.ts';
import { continueRequestSchema, workerTaskIdSchema } from '../../fleet/api/worker-schemas.ts';
import { type ApiContext, errors } from '../api-route-parts.ts';
import { framesResponse } from '../event-stream.ts';
import type { Route } from '../../http/route.ts';
import type { Fleet } from './fleet.ts';
import type { FleetQueue } from './fleet-queue.ts';
import { pickAction } from './fleet-routes.ts';
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
  handler: async (c, { params, query }) =>
    framesResponse(c.req.raw, query.after as string | undefined, heartbeatMs, (after, signal) =>
      feedOf(fleet).frames(params.id!, after ?? 0, signal),
    ),
});

/** `POST /agent/fleet/tasks`: a task for the fleet's queue; the first idle worker whose executor matches takes it. */
export const fleetQueueSubmitRoute = ({ fleet }: ApiContext): Route => ({
  method: 'post',
  path: '/agent/fleet/tasks',
  summary:
    "Queues a task in the fleet's database (AGENCY_DATABASE_URL) for the first idle worker whose executor matches, " +
    'on any host; follow it with GET /agent/fleet/tasks/{id}/events',
  tag: 'fleet',
  body: { schema: fleetQueueRequestSchema, contentType: 'application/json' },
  responses: {
    202: { description: 'the task is queued', schema: fleetTaskQueuedSchema },
    ...errors(400, 401, 404, 413, 503),
  },
  handler: async (c, { body }) => {
    const task = await queueOf(fleet).submit(body as FleetQueueRequest);
    return c.json({ task_id: task.task_id, session_id: task.session_id, state: 'queued' as const }, 202);
  },
});

/** `POST /agent/fleet/tasks/{id}/cancel|continue|end`: through the fleet's queue, to the worker holding the task. */
export const fleetQueueActionRoutes = ({ fleet }: ApiContext): Route[] =>
  (
    [
      ['cancel', 'Cancels a fleet task: withdrawn from the queue, or cancelled on the worker holding it'],
      ['continue', "Sends an idle fleet session's next prompt to the worker holding it"],
      ['end', 'Ends an idle fleet session on the worker holding it'],
    ] as const
  ).map(([verb, summary]) => ({
    method: 'post',
    path: `/agent/fleet/tasks/{id}/${verb}`,
    summary,
    tag: 'fleet',
    params: taskParams,
    ...(verb === 'continue' ? { body: { schema: continueRequestSchema, contentType: 'application/json' } } : {}),
    responses: {
      200: { description: "the task's state after the call", schema: fleetTaskActionSchema },
      ...errors(400, 401, 404, 409, 502, 503, 504),
    },
    handler: async (c, { params, body }) => {
      const prompt = verb === 'continue' ? (body as { prompt: string }).prompt : undefined;
      const answer = await queueOf(fleet).act(params.id!, verb, prompt);
      return c.json(fleetTaskActionSchema.parse(pickAction(answer as Record<string, unknown>)));
    },
  }));

function queueOf(fleet: Fleet): FleetQueue {
  if (fleet.queue) return fleet.queue;
  throw noDatabase();
}

function feedOf(fleet: Fleet): FleetTaskFeed {
  if (fleet.tasks) return fleet.tasks;
  throw noDatabase();
}

function noDatabase(): AgencyError {
  return new AgencyError(
    'task_not_found',
    "The fleet's tasks are in its PostgreSQL database, and this server runs without one: start agency serve with " +
      'AGENCY_DATABASE_URL set, as its workers are',
    { details: { field: 'AGENCY_DATABASE_URL' } },
  );
}
