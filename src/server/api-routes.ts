import { Readable } from 'node:stream';
import type { Context } from 'hono';
import { z } from 'zod';
import {
  decisionRequestSchema,
  errorBodySchema,
  inboxSchema,
  resumeRequestSchema,
  serverInfoSchema,
  startTaskRequestSchema,
  stopRequestSchema,
  TASK_FILTERS,
  taskActionSchema,
  taskDetailSchema,
  taskIdSchema,
  taskListSchema,
  taskResultSchema,
  uploadResultSchema,
  requestIdSchema,
} from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { approvalDecisionSchema } from '../task/contracts/approvals.ts';
import type { TaskService } from '../service/task-service.ts';
import type { IncomingFile } from '../service/task-intake.ts';
import { toBudgets } from '../service/budgets.ts';
import { eventStream, resumeAfter } from './event-stream.ts';
import { parseInput } from '../api/parse-input.ts';
import type { Route } from './route.ts';

/** What the API routes need from the server. */
export type ApiContext = {
  service: TaskService;
  version: string;
  policy: string;
  heartbeatMs: number;
  limits: { bodyBytes: number; uploadBytes: number };
};

const idParams = z.object({ id: taskIdSchema }).strict();
const viewQuery = z.object({ view: z.enum(['minimal', 'summary', 'full']).optional() }).strict();
const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [status, { description: ERROR_TEXT[status] ?? 'error', schema: errorBodySchema }]),
  );
const ERROR_TEXT: Record<number, string> = {
  400: 'validation_error: a field is missing or malformed (details.field names it)',
  401: 'unauthorized: no valid token or session',
  403: 'forbidden: wrong Host or Origin, or a cross-site request',
  404: 'not_found',
  409: 'conflict, task_in_progress or already_completed',
  413: 'payload_too_large',
  500: 'internal_error',
};

const principalOf = (c: Context) => ({ name: c.get('principal') as string });

/** The routes of the API, in the order the OpenAPI document lists them. */
export function apiRoutes(api: ApiContext): Route[] {
  const { service } = api;
  return [
    {
      method: 'get',
      path: '/agent/server',
      summary: 'What this server allows: models, approval modes, limits, and who you are',
      tag: 'server',
      responses: { 200: { description: 'the server', schema: serverInfoSchema }, ...errors(401) },
      handler: async (c) =>
        c.json({
          version: api.version,
          principal: principalOf(c).name,
          default_model: service.settings.models[0] ?? null,
          models: [...service.settings.models],
          approval_modes: [...service.settings.approvalModes],
          policy: api.policy,
          max_concurrent_runs: service.settings.maxConcurrentRuns,
          limits: {
            body_bytes: api.limits.bodyBytes,
            upload_bytes: api.limits.uploadBytes,
            upload_files: service.settings.limits.files,
          },
        }),
    },
    {
      method: 'get',
      path: '/agent/tasks',
      summary: 'The tasks, newest first, filtered by status and paginated',
      tag: 'tasks',
      query: z
        .object({
          status: z
            .string()
            .max(200)
            .optional()
            .describe(`Comma-separated: ${TASK_FILTERS.join(', ')}`),
          cursor: z.string().max(40).optional(),
          limit: z.coerce.number().int().min(1).max(100).optional(),
        })
        .strict(),
      responses: { 200: { description: 'a page of tasks', schema: taskListSchema }, ...errors(400, 401) },
      handler: async (c, { query }) => {
        const filter = String(query.status ?? '')
          .split(',')
          .filter(Boolean)
          .map((value, index) => parseInput(z.enum(TASK_FILTERS), value, `status.${index}`));
        return c.json(
          await service.list({
            filter,
            ...(query.cursor === undefined ? {} : { cursor: String(query.cursor) }),
            ...(query.limit === undefined ? {} : { limit: Number(query.limit) }),
          }),
        );
      },
    },
    {
      method: 'post',
      path: '/agent/tasks/do',
      summary: 'Starts a task and answers when its run ends, with the result in the view asked for',
      tag: 'tasks',
      query: viewQuery,
      body: { schema: startTaskRequestSchema, contentType: 'application/json' },
      responses: { 200: { description: 'the result', schema: taskResultSchema }, ...errors(400, 401, 403, 413) },
      handler: async (c, { query, body }) =>
        c.json(
          await service.startAndWait(
            body as z.infer<typeof startTaskRequestSchema>,
            principalOf(c),
            (query.view as 'minimal' | 'summary' | 'full' | undefined) ?? 'summary',
          ),
        ),
    },
    {
      method: 'post',
      path: '/agent/tasks/do/async',
      summary: 'Starts a task (or holds it for uploads with "hold": true) and answers at once',
      tag: 'tasks',
      body: { schema: startTaskRequestSchema, contentType: 'application/json' },
      responses: { 202: { description: 'queued or held', schema: taskActionSchema }, ...errors(400, 401, 403, 413) },
      handler: async (c, { body }) =>
        c.json(await service.start(body as z.infer<typeof startTaskRequestSchema>, principalOf(c)), 202),
    },
    {
      method: 'get',
      path: '/agent/tasks/{id}',
      summary: 'A task: its state, plan versions, verify reports, approvals and deliverables',
      tag: 'tasks',
      params: idParams,
      responses: { 200: { description: 'the task', schema: taskDetailSchema }, ...errors(400, 401, 404) },
      handler: async (c, { params }) => c.json(await service.get(params.id!)),
    },
    {
      method: 'get',
      path: '/agent/tasks/{id}/events',
      summary:
        "The task's journal frames: SSE with `Accept: text/event-stream`, NDJSON otherwise; resumes after `Last-Event-ID` or `?after=`",
      tag: 'tasks',
      params: idParams,
      query: z.object({ after: z.string().max(16).optional() }).strict(),
      responses: {
        200: {
          description: 'a stream of agent.events.v1 frames; each SSE event id is the frame seq; `event: end` closes it',
          contentType: 'text/event-stream',
        },
        ...errors(400, 401, 404),
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
        const frames = await service.events(params.id!, {
          ...(after === undefined ? {} : { after }),
          signal: controller.signal,
        });
        return new Response(
          eventStream(frames, { format: sse ? 'sse' : 'ndjson', heartbeatMs: api.heartbeatMs, controller }),
          {
            headers: {
              'content-type': sse ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
              'cache-control': 'no-store',
              'x-accel-buffering': 'no',
            },
          },
        );
      },
    },
    {
      method: 'get',
      path: '/agent/tasks/{id}/result',
      summary: "The finished run's result: minimal, summary (default) or full",
      tag: 'tasks',
      params: idParams,
      query: viewQuery,
      responses: { 200: { description: 'the result', schema: taskResultSchema }, ...errors(400, 401, 404, 409) },
      handler: async (c, { params, query }) =>
        c.json(
          await service.result(params.id!, (query.view as 'minimal' | 'summary' | 'full' | undefined) ?? 'summary'),
        ),
    },
    {
      method: 'post',
      path: '/agent/tasks/{id}/start',
      summary: 'Starts a task that was held for uploads',
      tag: 'tasks',
      params: idParams,
      responses: { 200: { description: 'queued', schema: taskActionSchema }, ...errors(400, 401, 403, 404, 409) },
      handler: async (c, { params }) => c.json(await service.release(params.id!, principalOf(c))),
    },
    {
      method: 'post',
      path: '/agent/tasks/{id}/stop',
      summary: 'Stops a run within a second (journaled, resumable); takes a queued one out of the queue',
      tag: 'tasks',
      params: idParams,
      body: { schema: stopRequestSchema, contentType: 'application/json' },
      responses: { 200: { description: 'stopping', schema: taskActionSchema }, ...errors(400, 401, 403, 404, 409) },
      handler: async (c, { params, body }) =>
        c.json(
          await service.stop(
            params.id!,
            (body as { reason?: 'stopped' | 'cancelled' }).reason ?? 'stopped',
            principalOf(c),
          ),
        ),
    },
    {
      method: 'post',
      path: '/agent/tasks/{id}/resume',
      summary: 'Resumes a run that was not finished on purpose, optionally with raised budgets (journaled)',
      tag: 'tasks',
      params: idParams,
      body: { schema: resumeRequestSchema, contentType: 'application/json' },
      responses: { 200: { description: 'resuming', schema: taskActionSchema }, ...errors(400, 401, 403, 404, 409) },
      handler: async (c, { params, body }) => {
        const budgets = (body as z.infer<typeof resumeRequestSchema>).budgets;
        return c.json(await service.resume(params.id!, budgets ? toBudgets(budgets) : undefined, principalOf(c)));
      },
    },
    {
      method: 'post',
      path: '/agent/tasks/{id}/upload',
      summary: 'Uploads files (multipart field "files") into task/ of a held task',
      tag: 'tasks',
      params: idParams,
      body: { contentType: 'multipart/form-data' },
      responses: {
        200: { description: 'the files written', schema: uploadResultSchema },
        ...errors(400, 401, 403, 404, 409, 413),
      },
      handler: async (c, { params }) => c.json(await service.upload(params.id!, await uploadedFiles(c))),
    },
    {
      method: 'get',
      path: '/agent/tasks/{id}/deliverables/{path}',
      summary: 'Downloads a file the run delivered (its `path`, e.g. progress/artifacts/brief.md)',
      tag: 'tasks',
      params: z.object({ id: taskIdSchema, path: z.string().min(1).max(1024) }).strict(),
      responses: {
        200: { description: 'the file, as an attachment', contentType: 'application/octet-stream' },
        ...errors(400, 401, 404),
      },
      handler: async (c, { params }) => {
        const file = await service.deliverable(params.id!, params.path!);
        const body = Readable.toWeb(file.handle.createReadStream({ autoClose: true })) as ReadableStream<Uint8Array>;
        return new Response(body, {
          headers: {
            'content-type': file.mime,
            'content-length': String(file.size),
            'content-disposition': `attachment; filename="${file.name.replace(/[^\w.-]/g, '_')}"`,
            'content-security-policy': "sandbox; default-src 'none'",
            'x-content-type-options': 'nosniff',
            etag: `"${file.sha256}"`,
          },
        });
      },
    },
    {
      method: 'get',
      path: '/agent/approvals',
      summary: 'Every pending approval request across tasks, with what it asks',
      tag: 'approvals',
      responses: { 200: { description: 'the inbox', schema: inboxSchema }, ...errors(401) },
      handler: async (c) => c.json({ items: await service.inbox() }),
    },
    {
      method: 'post',
      path: '/agent/approvals/{id}/decision',
      summary: "Approves or denies a request; the decision is signed with the caller's name",
      tag: 'approvals',
      params: z.object({ id: requestIdSchema }).strict(),
      body: { schema: decisionRequestSchema, contentType: 'application/json' },
      responses: {
        200: { description: 'the decision on file', schema: approvalDecisionSchema },
        ...errors(400, 401, 403, 404, 409),
      },
      handler: async (c, { params, body }) =>
        c.json(await service.decide(params.id!, body as z.infer<typeof decisionRequestSchema>, principalOf(c))),
    },
  ];
}

// The files of a multipart upload: every part named "files" (or any file part), read within the body limit.
async function uploadedFiles(c: Context): Promise<IncomingFile[]> {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('multipart/form-data'))
    throw new AgencyError('invalid_argument', 'body: send the files as multipart/form-data, in parts named "files"', {
      details: { field: 'body' },
    });
  const form = await c.req.formData();
  const files: IncomingFile[] = [];
  for (const [, value] of form.entries()) {
    if (typeof value === 'string') continue;
    files.push({ name: value.name, data: new Uint8Array(await value.arrayBuffer()) });
  }
  if (files.length === 0)
    throw new AgencyError('invalid_argument', 'files: no file parts in the upload', { details: { field: 'files' } });
  return files;
}
