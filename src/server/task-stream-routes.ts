import { Readable } from 'node:stream';
import { z } from 'zod';
import { taskIdSchema } from '../api/schemas.ts';
import { type ApiContext, errors, idParams } from './api-route-parts.ts';
import { framesResponse } from './event-stream.ts';
import type { Route } from '../http/route.ts';

/** `GET /agent/tasks/{id}/events`: the journal as SSE or NDJSON, live, resumable. */
export const taskEventsRoute = ({ service, heartbeatMs }: ApiContext): Route => ({
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
  handler: async (c, { params, query }) =>
    framesResponse(c.req.raw, query.after as string | undefined, heartbeatMs, (after, signal) =>
      service.events(params.id!, { ...(after === undefined ? {} : { after }), signal }),
    ),
});

/** `GET /agent/tasks/{id}/deliverables/{path}`: a delivered file, as an attachment that no browser runs. */
export const deliverableRoute = ({ service }: ApiContext): Route => ({
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
});
