import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import type { TaskService } from '../../service/task-service.ts';
import { readDeliverable } from './deliverable-content.ts';
import { protocolErrorOf } from './task-answers.ts';
import type { TaskToolDeps } from './task-tool-entry.ts';
import { APPROVALS_URI, parseTaskUri, type TaskResource, taskUri } from './task-uri.ts';

const JSON_TYPE = 'application/json';

/** The resource templates of governed tasks. */
export const TASK_RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: 'agency://tasks/{task_id}',
    name: 'task',
    title: 'A governed task',
    description: 'The task: status, brief, plan versions, approvals, verify reports, deliverables, last_seq',
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: 'agency://tasks/{task_id}/events{?after}',
    name: 'task-events',
    title: "A task's journal",
    description:
      'The journal frames after "after" as NDJSON, up to the read limit; _meta["agency/last-seq"] is where to go on from',
    mimeType: 'application/x-ndjson',
  },
  {
    uriTemplate: 'agency://tasks/{task_id}/result{?view}',
    name: 'task-result',
    title: "A finished task's result",
    description: 'The result in the view asked for: minimal, summary (default) or full',
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: 'agency://tasks/{task_id}/deliverables/{+path}',
    name: 'task-deliverable',
    title: 'A file a task delivered',
    description: 'A file under progress/artifacts/, by its path there',
  },
];

const APPROVALS: Resource = {
  uri: APPROVALS_URI,
  name: 'approvals',
  title: 'Pending approvals',
  description: 'Every approval request waiting for a decision, across tasks',
  mimeType: JSON_TYPE,
};

/** Installs `resources/list`, `resources/templates/list` and `resources/read` for governed tasks on a session. */
export function installTaskResources(server: Server, deps: TaskToolDeps): void {
  const { service, logger } = deps;
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: TASK_RESOURCE_TEMPLATES }));
  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const cursor = request.params?.cursor;
    try {
      const page = await service.list({ limit: 50, ...(cursor === undefined ? {} : { cursor }) });
      const tasks = page.items.map((task): Resource => ({
        uri: taskUri(task.id),
        name: task.id,
        title: task.goal || task.id,
        description: `${task.status}${task.phase ? ` (${task.phase})` : ''}${task.pending_approvals ? `, ${task.pending_approvals} approval(s) pending` : ''}`,
        mimeType: JSON_TYPE,
      }));
      return {
        resources: cursor === undefined ? [APPROVALS, ...tasks] : tasks,
        ...(page.next_cursor ? { nextCursor: page.next_cursor } : {}),
      };
    } catch (error) {
      throw protocolErrorOf(error, logger, 'resources/list');
    }
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    try {
      return await readResource(parseTaskUri(uri), uri, deps);
    } catch (error) {
      throw protocolErrorOf(error, logger, 'resources/read');
    }
  });
}

async function readResource(resource: TaskResource, uri: string, deps: TaskToolDeps): Promise<ReadResourceResult> {
  const { service, maxReadBytes } = deps;
  const json = (value: unknown): ReadResourceResult => ({
    contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(value, null, 2) }],
  });
  switch (resource.kind) {
    case 'approvals':
      return json({ items: await service.inbox() });
    case 'task':
      return json(await service.get(resource.taskId));
    case 'result':
      return json(await service.result(resource.taskId, resource.view));
    case 'events': {
      const { text, lastSeq, truncated } = await journalText(service, resource.taskId, resource.after, maxReadBytes);
      const _meta = { 'agency/last-seq': lastSeq, 'agency/truncated': truncated };
      return { contents: [{ uri, mimeType: 'application/x-ndjson', text, _meta }] };
    }
    case 'deliverable': {
      const file = await readDeliverable(service, resource.taskId, resource.path, maxReadBytes);
      const base = { uri: file.uri, mimeType: file.mime, _meta: { 'agency/sha256': file.sha256 } };
      if ('text' in file) return { contents: [{ ...base, text: file.text }] };
      return { contents: [{ ...base, blob: Buffer.from(file.data).toString('base64') }] };
    }
  }
}

/**
 * The journal as it is now, after `after`: the frames up to the last seq on file when the read began (a live run's
 * later frames wait for the next read), cut at a frame boundary before `maxBytes`.
 */
async function journalText(service: TaskService, taskId: string, after: number, maxBytes: number) {
  const end = (await service.get(taskId)).last_seq;
  let text = '';
  let size = 0;
  let lastSeq = after;
  let truncated = false;
  if (after >= end) return { text, lastSeq, truncated };
  const controller = new AbortController();
  try {
    for await (const frame of await service.events(taskId, { after, signal: controller.signal })) {
      const line = `${JSON.stringify(frame)}\n`;
      // At least one frame, so a reader always moves on.
      const bytes = Buffer.byteLength(line);
      if (text !== '' && size + bytes > maxBytes) {
        truncated = true;
        break;
      }
      text += line;
      size += bytes;
      lastSeq = frame.seq;
      if (frame.seq >= end) break;
    }
  } finally {
    controller.abort();
  }
  return { text, lastSeq, truncated };
}
