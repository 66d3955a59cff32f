import { z } from 'zod';
import { errorBodySchema } from '../../api/schemas.ts';
import type { Route } from '../../http/route.ts';
import {
  cancelResponseSchema,
  continueRequestSchema,
  continueResponseSchema,
  endResponseSchema,
  historyPageSchema,
  historyRecordSchema,
  shutdownRequestSchema,
  shutdownResponseSchema,
  statusSchema,
  taskCreatedSchema,
  taskListSchema,
  taskRequestSchema,
  workerTaskIdSchema,
  workerTaskSchema,
  type WorkerStatus,
  type WorkerTaskRequest,
} from '../api/worker-schemas.ts';
import type { Worker } from './worker.ts';

/** What the routes need besides the worker. */
export type WorkerRouteContext = {
  worker: Worker;
  status(): WorkerStatus;
  /** Called once a shutdown was accepted, with the promise of its drain. */
  onShutdown(drained: Promise<void>): void;
};

const idParams = z.object({ id: workerTaskIdSchema }).strict();
const historyQuery = z
  .object({
    page: z.coerce.number().int().positive().max(1_000_000).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
const ERROR_TEXT: Record<number, string> = {
  400: 'validation_error: a field is missing or malformed (details.field names it)',
  401: 'unauthorized: no valid token (only when the worker is bound beyond loopback)',
  403: 'forbidden: wrong Host or Origin',
  404: 'not_found',
  409: 'agent_busy, task_in_progress or already_completed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  500: 'internal_error',
  503: 'service_unavailable: the worker is starting or shutting down',
};
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, { description: ERROR_TEXT[status]!, schema: errorBodySchema }]));
const COMMON = [401, 403, 500];

/** The worker's routes, seed 004's appendix A and phases 1.2–2.4, in the order the OpenAPI document lists them. */
export function workerRoutes(context: WorkerRouteContext): Route[] {
  return [...statusRoutes(context), ...taskRoutes(context), ...readRoutes(context), ...shutdownRoutes(context)];
}

const id = (params: Record<string, string>) => params.id!;

// `GET /status`.
function statusRoutes({ status }: WorkerRouteContext): Route[] {
  return [
    {
      method: 'get',
      path: '/status',
      summary: 'What this worker is, its state, its current task and its recent lifecycle lines',
      tag: 'status',
      responses: { 200: { description: 'the status', schema: statusSchema }, ...errors(...COMMON) },
      handler: async (c) => c.json(status()),
    },
  ];
}

// Starting a task, reading it, cancelling it, and a session's continue and end.
function taskRoutes({ worker }: WorkerRouteContext): Route[] {
  return [
    {
      method: 'post',
      path: '/task',
      summary: 'Start a task (a new session, or the session_id given continued)',
      tag: 'tasks',
      body: { schema: taskRequestSchema, contentType: 'application/json' },
      responses: {
        201: { description: 'the task started', schema: taskCreatedSchema },
        ...errors(...COMMON, 400, 409, 413, 415, 503),
      },
      handler: async (c, { body }) => c.json(await worker.submit(body as WorkerTaskRequest), 201),
    },
    {
      method: 'get',
      path: '/task/{id}',
      summary: 'A task: state, exit code, times, output, error, session, usage',
      tag: 'tasks',
      params: idParams,
      responses: { 200: { description: 'the task', schema: workerTaskSchema }, ...errors(...COMMON, 400, 404) },
      handler: async (c, { params }) => c.json(await worker.task(id(params))),
    },
    {
      method: 'post',
      path: '/task/{id}/cancel',
      summary: 'Cancel a task: SIGTERM to its executor, SIGKILL 10 s later; cancelled with its partial output',
      tag: 'tasks',
      params: idParams,
      responses: {
        200: { description: 'cancelling (or cancelled, when idle)', schema: cancelResponseSchema },
        ...errors(...COMMON, 400, 404, 409),
      },
      handler: async (c, { params }) => c.json(await worker.cancel(id(params))),
    },
    {
      method: 'post',
      path: '/task/{id}/continue',
      summary: "Send an idle session's next prompt: its executor resumes the session in the same directory",
      tag: 'sessions',
      params: idParams,
      body: { schema: continueRequestSchema, contentType: 'application/json' },
      responses: {
        200: { description: 'working again', schema: continueResponseSchema },
        ...errors(...COMMON, 400, 404, 409, 413, 415, 503),
      },
      handler: async (c, { params, body }) =>
        c.json(await worker.continueTask(id(params), (body as { prompt: string }).prompt)),
    },
    {
      method: 'post',
      path: '/task/{id}/end',
      summary: 'End an idle session: the task is completed with its last output',
      tag: 'sessions',
      params: idParams,
      responses: { 200: { description: 'completed', schema: endResponseSchema }, ...errors(...COMMON, 400, 404, 409) },
      handler: async (c, { params }) => c.json(await worker.end(id(params))),
    },
  ];
}

// A task's raw record, the tasks held, and the history.
function readRoutes({ worker }: WorkerRouteContext): Route[] {
  return [
    {
      method: 'get',
      path: '/task/{id}/debug',
      summary: "A task with its executor's raw stdout and stderr, and its lifecycle log",
      tag: 'tasks',
      params: idParams,
      responses: { 200: { description: 'the record', schema: historyRecordSchema }, ...errors(...COMMON, 400, 404) },
      handler: async (c, { params }) => c.json(await worker.record(id(params))),
    },
    {
      method: 'get',
      path: '/tasks',
      summary: 'The tasks this worker holds: the running one and the idle sessions',
      tag: 'tasks',
      responses: { 200: { description: 'the tasks', schema: taskListSchema }, ...errors(...COMMON) },
      handler: async (c) => c.json({ items: worker.list() }),
    },
    {
      method: 'get',
      path: '/history',
      summary: 'Past and present tasks, newest first, as summaries (page from 1; limit 20 by default, at most 100)',
      tag: 'history',
      query: historyQuery,
      responses: { 200: { description: 'a page', schema: historyPageSchema }, ...errors(...COMMON, 400, 503) },
      handler: async (c, { query }) => {
        const { page, limit } = query as z.output<typeof historyQuery>;
        return c.json({ ...worker.history(page, limit), page, limit });
      },
    },
    {
      method: 'get',
      path: '/history/{id}',
      summary: 'A task in full: prompt, lifecycle log, output, and the raw stdout and stderr',
      tag: 'history',
      params: idParams,
      responses: { 200: { description: 'the record', schema: historyRecordSchema }, ...errors(...COMMON, 400, 404) },
      handler: async (c, { params }) => c.json(await worker.record(id(params))),
    },
  ];
}

// `POST /shutdown`.
function shutdownRoutes({ worker, onShutdown }: WorkerRouteContext): Route[] {
  return [
    {
      method: 'post',
      path: '/shutdown',
      summary: 'Stop taking tasks, drain, and exit; refused while a task runs unless force',
      tag: 'status',
      body: { schema: shutdownRequestSchema, contentType: 'application/json' },
      responses: {
        202: { description: 'shutting down', schema: shutdownResponseSchema },
        ...errors(...COMMON, 400, 409, 413, 415),
      },
      handler: async (c, { body }) => {
        const { timeout_seconds: drain = 30, force = false } = body as z.output<typeof shutdownRequestSchema>;
        onShutdown(worker.shutdown({ drainMs: drain * 1_000, force }));
        return c.json({ message: 'Shutdown initiated', drain_timeout: drain }, 202);
      },
    },
  ];
}
