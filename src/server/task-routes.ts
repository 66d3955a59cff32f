import type { Context } from 'hono';
import { z } from 'zod';
import { parseInput } from '../api/parse-input.ts';
import {
  resumeRequestSchema,
  startTaskRequestSchema,
  stopRequestSchema,
  TASK_FILTERS,
  taskActionSchema,
  taskDetailSchema,
  taskListSchema,
  taskResultSchema,
  uploadResultSchema,
} from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { toBudgets } from '../service/budgets.ts';
import type { IncomingFile } from '../service/task-intake.ts';
import { type ApiContext, errors, idParams, principalOf, viewQuery } from './api-route-parts.ts';
import type { Route } from '../http/route.ts';

type View = 'minimal' | 'summary' | 'full';

/** `GET /agent/tasks`: a page of the task list. */
export const listTasksRoute = ({ service }: ApiContext): Route => ({
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
});

/** `POST /agent/tasks/do`: starts a task and answers when its run ends. */
export const doTaskRoute = ({ service }: ApiContext): Route => ({
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
        (query.view as View | undefined) ?? 'summary',
      ),
    ),
});

/** `POST /agent/tasks/do/async`: starts (or holds) a task and answers at once. */
export const doTaskAsyncRoute = ({ service }: ApiContext): Route => ({
  method: 'post',
  path: '/agent/tasks/do/async',
  summary: 'Starts a task (or holds it for uploads with "hold": true) and answers at once',
  tag: 'tasks',
  body: { schema: startTaskRequestSchema, contentType: 'application/json' },
  responses: { 202: { description: 'queued or held', schema: taskActionSchema }, ...errors(400, 401, 403, 413) },
  handler: async (c, { body }) =>
    c.json(await service.start(body as z.infer<typeof startTaskRequestSchema>, principalOf(c)), 202),
});

/** `GET /agent/tasks/{id}`: the task in full. */
export const getTaskRoute = ({ service }: ApiContext): Route => ({
  method: 'get',
  path: '/agent/tasks/{id}',
  summary: 'A task: its state, plan versions, verify reports, approvals and deliverables',
  tag: 'tasks',
  params: idParams,
  responses: { 200: { description: 'the task', schema: taskDetailSchema }, ...errors(400, 401, 404) },
  handler: async (c, { params }) => c.json(await service.get(params.id!)),
});

/** `GET /agent/tasks/{id}/result`: the finished run's result. */
export const taskResultRoute = ({ service }: ApiContext): Route => ({
  method: 'get',
  path: '/agent/tasks/{id}/result',
  summary: "The finished run's result: minimal, summary (default) or full",
  tag: 'tasks',
  params: idParams,
  query: viewQuery,
  responses: { 200: { description: 'the result', schema: taskResultSchema }, ...errors(400, 401, 404, 409) },
  handler: async (c, { params, query }) =>
    c.json(await service.result(params.id!, (query.view as View | undefined) ?? 'summary')),
});

/** `POST /agent/tasks/{id}/start`: starts a held task. */
export const startTaskRoute = ({ service }: ApiContext): Route => ({
  method: 'post',
  path: '/agent/tasks/{id}/start',
  summary: 'Starts a task that was held for uploads',
  tag: 'tasks',
  params: idParams,
  responses: { 200: { description: 'queued', schema: taskActionSchema }, ...errors(400, 401, 403, 404, 409) },
  handler: async (c, { params }) => c.json(await service.release(params.id!, principalOf(c))),
});

/** `POST /agent/tasks/{id}/stop`: stops a run, or takes a queued one out of the queue. */
export const stopTaskRoute = ({ service }: ApiContext): Route => ({
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
});

/** `POST /agent/tasks/{id}/resume`: resumes a run, optionally with raised budgets. */
export const resumeTaskRoute = ({ service }: ApiContext): Route => ({
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
});

/** `POST /agent/tasks/{id}/upload`: files into `task/` of a held task. */
export const uploadRoute = ({ service }: ApiContext): Route => ({
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
});

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
