import { z } from 'zod';
import {
  componentDetailSchema,
  componentNameSchema,
  fleetSchema,
  fleetTaskActionSchema,
  fleetTaskCreatedSchema,
  type FleetTaskRequest,
  fleetTaskRequestSchema,
  fleetTaskSchema,
} from '../../api/fleet-schemas.ts';
import {
  continueRequestSchema,
  historyPageSchema,
  historyRecordSchema,
  workerTaskIdSchema,
} from '../../fleet/api/worker-schemas.ts';
import { type ApiContext, errors } from '../api-route-parts.ts';
import type { Route } from '../../http/route.ts';
import { callWorker } from './fleet-errors.ts';

const nameParams = z.object({ name: componentNameSchema }).strict();
const taskParams = z.object({ name: componentNameSchema, id: workerTaskIdSchema }).strict();
const historyQuery = z
  .object({
    page: z.coerce.number().int().positive().max(1_000_000).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
// Every route that calls a worker may meet one that is busy, gone, slow or broken.
const WORKER = [400, 401, 404, 502, 503, 504];

/** `GET /agent/fleet`: every component discovery found, with its health. */
export const fleetRoute = ({ fleet }: ApiContext): Route => ({
  method: 'get',
  path: '/agent/fleet',
  summary:
    'The components discovery found (port scan and static list), each with its state and health, and with ' +
    'AGENCY_DATABASE_URL the registry read now; 503 when its database cannot be reached',
  tag: 'fleet',
  responses: { 200: { description: 'the fleet', schema: fleetSchema }, ...errors(401, 503) },
  handler: async (c) => c.json(await fleet.read()),
});

/** `GET /agent/fleet/components/{name}`: one component, polled now, with its config and lifecycle lines. */
export const componentRoute = ({ fleet }: ApiContext): Route => ({
  method: 'get',
  path: '/agent/fleet/components/{name}',
  summary: "A component's status, polled now: state, health, current task, config and its last lifecycle lines",
  tag: 'fleet',
  params: nameParams,
  responses: { 200: { description: 'the component', schema: componentDetailSchema }, ...errors(400, 401, 404) },
  handler: async (c, { params }) => c.json(await fleet.detail(params.name!)),
});

/** `POST /agent/fleet/workers/{name}/tasks`: a task for that worker. */
export const submitRoute = ({ fleet }: ApiContext): Route => ({
  method: 'post',
  path: '/agent/fleet/workers/{name}/tasks',
  summary: 'Sends a task to a worker (a new session, or session_id continued); 409 agent_busy when it runs another',
  tag: 'fleet',
  params: nameParams,
  body: { schema: fleetTaskRequestSchema, contentType: 'application/json' },
  responses: {
    201: { description: 'the worker took it', schema: fleetTaskCreatedSchema },
    ...errors(...WORKER, 403, 409, 413),
  },
  handler: async (c, { params, body }) => {
    const worker = fleet.worker(params.name!);
    const created = await callWorker(worker.name, () => worker.client.submit(body as FleetTaskRequest));
    fleet.refresh(worker.component.url);
    return c.json({ ...created, worker: worker.name }, 201);
  },
});

/** `GET /agent/fleet/workers/{name}/tasks/{id}`: a task, its prompt and its lifecycle lines. */
export const workerTaskRoute = ({ fleet }: ApiContext): Route => ({
  method: 'get',
  path: '/agent/fleet/workers/{name}/tasks/{id}',
  summary:
    'A task on a worker: state, times, output, error, usage, its prompt and lifecycle lines (not the raw output)',
  tag: 'fleet',
  params: taskParams,
  responses: { 200: { description: 'the task', schema: fleetTaskSchema }, ...errors(...WORKER) },
  handler: async (c, { params }) => {
    const worker = fleet.worker(params.name!);
    const record = await callWorker(worker.name, () => worker.client.historyRecord(params.id!));
    const { stdout: _stdout, stderr: _stderr, ...task } = record;
    return c.json(task);
  },
});

/** The three calls on a task that answer with its state: cancel, continue and end. */
export const taskActionRoutes = ({ fleet }: ApiContext): Route[] => {
  const action = (
    verb: 'cancel' | 'continue' | 'end',
    summary: string,
    call: (
      client: ReturnType<typeof fleet.worker>['client'],
      id: string,
      body: unknown,
    ) => Promise<Record<string, unknown>>,
  ): Route => ({
    method: 'post',
    path: `/agent/fleet/workers/{name}/tasks/{id}/${verb}`,
    summary,
    tag: 'fleet',
    params: taskParams,
    ...(verb === 'continue' ? { body: { schema: continueRequestSchema, contentType: 'application/json' } } : {}),
    responses: {
      200: { description: "the task's state after the call", schema: fleetTaskActionSchema },
      ...errors(...WORKER, 403, 409, ...(verb === 'continue' ? [413] : [])),
    },
    handler: async (c, { params, body }) => {
      const worker = fleet.worker(params.name!);
      const answer = await callWorker(worker.name, () => call(worker.client, params.id!, body));
      fleet.refresh(worker.component.url);
      return c.json(fleetTaskActionSchema.parse(pickAction(answer)));
    },
  });
  return [
    action('cancel', 'Cancels a task: SIGTERM to its executor, SIGKILL 10 s later', (client, id) => client.cancel(id)),
    action(
      'continue',
      "Sends an idle session's next prompt; the executor resumes the same session",
      (client, id, body) => client.continue(id, (body as z.infer<typeof continueRequestSchema>).prompt),
    ),
    action('end', 'Ends an idle session: the task is completed with its last output', (client, id) => client.end(id)),
  ];
};

/** `GET /agent/fleet/workers/{name}/history`: a page of the worker's history, newest first. */
export const historyRoute = ({ fleet }: ApiContext): Route => ({
  method: 'get',
  path: '/agent/fleet/workers/{name}/history',
  summary: "A page of a worker's history, newest first, as summaries (limit 20 by default, at most 100)",
  tag: 'fleet',
  params: nameParams,
  query: historyQuery,
  responses: { 200: { description: 'a page', schema: historyPageSchema }, ...errors(...WORKER) },
  handler: async (c, { params, query }) => {
    const worker = fleet.worker(params.name!);
    const { page, limit } = query as z.output<typeof historyQuery>;
    return c.json(await callWorker(worker.name, () => worker.client.history({ page, limit })));
  },
});

/** `GET /agent/fleet/workers/{name}/history/{id}`: a task in full, with the executor's raw stdout and stderr. */
export const historyRecordRoute = ({ fleet }: ApiContext): Route => ({
  method: 'get',
  path: '/agent/fleet/workers/{name}/history/{id}',
  summary: "A task in full: prompt, lifecycle log, output, and the executor's raw stdout and stderr",
  tag: 'fleet',
  params: taskParams,
  responses: { 200: { description: 'the record', schema: historyRecordSchema }, ...errors(...WORKER) },
  handler: async (c, { params }) => {
    const worker = fleet.worker(params.name!);
    return c.json(await callWorker(worker.name, () => worker.client.historyRecord(params.id!)));
  },
});

// The fields of a worker's answer the API passes on; the rest of what a worker may add stays behind.
/** What a worker's answer to cancel, continue or end shows a client: the task's state, and a message or output. */
export function pickAction(answer: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = { task_id: answer.task_id, state: answer.state };
  if (typeof answer.message === 'string') picked.message = answer.message;
  if (typeof answer.output === 'string' || answer.output === null) picked.output = answer.output;
  return picked;
}
