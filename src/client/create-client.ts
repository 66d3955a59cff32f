import { z } from 'zod';
import {
  type DecisionRequest,
  inboxSchema,
  requestIdSchema,
  type ServerInfo,
  serverInfoSchema,
  type StartTaskRequest,
  taskActionSchema,
  taskDetailSchema,
  type TaskFilter,
  taskIdSchema,
  taskListSchema,
  taskResultSchema,
  uploadResultSchema,
} from '../api/schemas.ts';
import {
  componentDetailSchema,
  componentNameSchema,
  fleetSchema,
  fleetTaskActionSchema,
  fleetTaskCreatedSchema,
  fleetTaskListSchema,
  fleetTaskQueuedSchema,
  fleetTaskSchema,
} from '../api/fleet-schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { historyPageSchema, historyRecordSchema, workerTaskIdSchema } from '../fleet/api/worker-schemas.ts';
import { approvalDecisionSchema } from '../task/contracts/approvals.ts';
import type { AgencyClient, FleetClient, UploadFile } from './client-types.ts';
import { followEvents } from './follow-events.ts';
import { watchFleet } from './watch-fleet.ts';
import { type ClientOptions, createTransport } from './transport.ts';

const sessionSchema = z.object({ principal: z.string() }).strict();

/**
 * A typed client for agency's HTTP API (`agency serve`), built on `fetch` alone, so it runs in Node, browsers, Deno,
 * Bun and workers. Every answer is checked against the API's zod schemas; every failure is an `AgencyError` (the
 * server's code, with `details.status` and `details.error`); `tasks.events` follows a run across dropped connections.
 *
 * @example
 * const client = createClient({ baseUrl: 'http://127.0.0.1:7420', token: process.env.AGENCY_TOKEN });
 * const { task_id } = await client.tasks.start({ brief: '# Summarise the notes\n…' });
 * for await (const frame of client.tasks.events(task_id)) console.log(frame.seq, frame.type);
 * const result = await client.tasks.result(task_id);
 */
export function createClient(options: ClientOptions): AgencyClient {
  const transport = createTransport(options);
  const { json, send } = transport;
  const task = (id: string) => `/agent/tasks/${checkId(taskIdSchema, id, 'task id')}`;

  return {
    server: (call = {}) => json<ServerInfo>('GET', '/agent/server', serverInfoSchema, call),
    async login(token, call = {}) {
      await send('POST', '/auth/login', { body: { token }, signal: call.signal });
    },
    async logout(call = {}) {
      await send('POST', '/auth/logout', { signal: call.signal });
    },
    session: (call = {}) => json('GET', '/auth/session', sessionSchema, call),
    tasks: {
      list: ({ status, cursor, limit, signal } = {}) =>
        json('GET', '/agent/tasks', taskListSchema, {
          query: { status: statusQuery(status), cursor, limit },
          signal,
        }),
      get: (id, call = {}) => json('GET', task(id), taskDetailSchema, call),
      start: (request: StartTaskRequest, call = {}) =>
        json('POST', '/agent/tasks/do/async', taskActionSchema, { body: request, signal: call.signal }),
      run: (request: StartTaskRequest, { view, signal } = {}) =>
        json('POST', '/agent/tasks/do', taskResultSchema, { body: request, query: { view }, signal }),
      result: (id, { view, signal } = {}) =>
        json('GET', `${task(id)}/result`, taskResultSchema, { query: { view }, signal }),
      release: (id, call = {}) => json('POST', `${task(id)}/start`, taskActionSchema, call),
      stop: (id, { reason, signal } = {}) =>
        json('POST', `${task(id)}/stop`, taskActionSchema, { body: reason ? { reason } : {}, signal }),
      resume: (id, { budgets, signal } = {}) =>
        json('POST', `${task(id)}/resume`, taskActionSchema, { body: budgets ? { budgets } : {}, signal }),
      upload: (id, files, call = {}) =>
        json('POST', `${task(id)}/upload`, uploadResultSchema, { body: formOf(files), signal: call.signal }),
      deliverable: (id, path, call = {}) =>
        send('GET', `${task(id)}/deliverables/${deliverablePath(path)}`, {
          headers: { accept: '*/*' },
          signal: call.signal,
        }),
      events: (id, events = {}) => followEvents(transport, `${task(id)}/events`, events),
    },
    approvals: {
      list: (call = {}) => json('GET', '/agent/approvals', inboxSchema, call),
      decide: (id: string, decision: DecisionRequest, call = {}) =>
        json(
          'POST',
          `/agent/approvals/${checkId(requestIdSchema, id, 'request id')}/decision`,
          approvalDecisionSchema,
          { body: decision, signal: call.signal },
        ),
    },
    fleet: fleetClient(transport),
  };
}

function fleetClient(transport: ReturnType<typeof createTransport>): FleetClient {
  const { json } = transport;
  const worker = (name: string) => `/agent/fleet/workers/${checkId(componentNameSchema, name, 'worker name')}`;
  const task = (name: string, id: string) =>
    `${worker(name)}/tasks/${checkId(workerTaskIdSchema, id, 'worker task id')}`;
  return {
    list: (call = {}) => json('GET', '/agent/fleet', fleetSchema, call),
    watch: (options = {}) => watchFleet(transport, '/agent/fleet/events', options),
    component: (name, call = {}) =>
      json(
        'GET',
        `/agent/fleet/components/${checkId(componentNameSchema, name, 'component name')}`,
        componentDetailSchema,
        call,
      ),
    submit: (name, request, call = {}) =>
      json('POST', `${worker(name)}/tasks`, fleetTaskCreatedSchema, { body: request, signal: call.signal }),
    task: (name, id, call = {}) => json('GET', task(name, id), fleetTaskSchema, call),
    cancel: (name, id, call = {}) => json('POST', `${task(name, id)}/cancel`, fleetTaskActionSchema, call),
    continue: (name, id, prompt, call = {}) =>
      json('POST', `${task(name, id)}/continue`, fleetTaskActionSchema, { body: { prompt }, signal: call.signal }),
    end: (name, id, call = {}) => json('POST', `${task(name, id)}/end`, fleetTaskActionSchema, call),
    history: (name, { page, limit, signal } = {}) =>
      json('GET', `${worker(name)}/history`, historyPageSchema, { query: { page, limit }, signal }),
    historyRecord: (name, id, call = {}) =>
      json(
        'GET',
        `${worker(name)}/history/${checkId(workerTaskIdSchema, id, 'worker task id')}`,
        historyRecordSchema,
        call,
      ),
    enqueue: (request, call = {}) =>
      json('POST', '/agent/fleet/tasks', fleetTaskQueuedSchema, { body: request, signal: call.signal }),
    taskAction: (id, verb, { prompt, signal } = {}) =>
      json(
        'POST',
        `/agent/fleet/tasks/${checkId(workerTaskIdSchema, id, 'worker task id')}/${verb}`,
        fleetTaskActionSchema,
        {
          ...(verb === 'continue' ? { body: { prompt } } : {}),
          signal,
        },
      ),
    tasks: ({ limit, signal } = {}) =>
      json('GET', '/agent/fleet/tasks', fleetTaskListSchema, { query: { limit }, signal }),
    taskEvents: (id, events = {}) =>
      followEvents(transport, `/agent/fleet/tasks/${checkId(workerTaskIdSchema, id, 'worker task id')}/events`, events),
  };
}

// Ids are checked before they become part of a URL: `..` or a slash would reach another route.
function checkId(schema: z.ZodString, id: string, what: string): string {
  if (!schema.safeParse(id).success)
    throw new AgencyError('invalid_argument', `"${String(id).slice(0, 80)}" is not a ${what}`, {
      details: { field: 'id' },
    });
  return id;
}

function deliverablePath(path: string): string {
  const segments = path.split('/');
  if (segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
    throw new AgencyError('invalid_argument', `"${path.slice(0, 200)}" is not a deliverable's path`, {
      details: { field: 'path' },
    });
  return segments.map(encodeURIComponent).join('/');
}

function statusQuery(status: TaskFilter | readonly TaskFilter[] | undefined): string | undefined {
  if (status === undefined) return undefined;
  return typeof status === 'string' ? status : status.join(',');
}

function formOf(files: readonly UploadFile[]): FormData {
  const form = new FormData();
  for (const { name, data, type } of files) {
    const blob = data instanceof Blob ? data : new Blob([data as BlobPart], type ? { type } : {});
    form.append('files', blob, name);
  }
  return form;
}
