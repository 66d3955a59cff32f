import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AgencyError } from '../../core/errors.ts';
import type { ServiceLogger } from '../../service/service-logger.ts';
import type { TaskService } from '../../service/task-service.ts';
import type { EventFrame } from '../../task/contracts/events.ts';
import { protocolErrorOf } from './task-answers.ts';
import { parseTaskUri, type TaskResource } from './task-uri.ts';

/** How long notifications for one resource are gathered into one. */
const COALESCE_MS = 100;
/** The most resources one session may subscribe to. */
const MAX_SUBSCRIPTIONS = 1000;

/**
 * Installs `resources/subscribe` and `resources/unsubscribe` on a session. While subscribed, a resource of a task
 * gets `notifications/resources/updated` when a run of this service journals a frame for that task (at most one per
 * resource every 100 ms), `agency://approvals` when any approval is requested or decided, and the session gets
 * `notifications/resources/list_changed` when a run starts. Returns the cleanup for the session's end.
 */
export function installTaskSubscriptions(server: Server, service: TaskService, logger: ServiceLogger): () => void {
  const subscribed = new Map<string, TaskResource>();
  const due = new Set<string>();
  let listChanged = false;
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    timer = undefined;
    for (const uri of due) server.sendResourceUpdated({ uri }).catch(() => undefined);
    due.clear();
    if (listChanged) server.sendResourceListChanged().catch(() => undefined);
    listChanged = false;
  };
  const schedule = () => {
    timer ??= setTimeout(flush, COALESCE_MS);
  };
  const off = service.onFrame((frame, taskId) => {
    for (const [uri, resource] of subscribed) if (concerns(resource, frame, taskId)) due.add(uri);
    if (frame.type === 'run.started') listChanged = true;
    if (due.size > 0 || listChanged) schedule();
  });

  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    try {
      const resource = parseTaskUri(request.params.uri);
      if (subscribed.size >= MAX_SUBSCRIPTIONS && !subscribed.has(request.params.uri))
        throw new AgencyError('payload_too_large', `A session subscribes to at most ${MAX_SUBSCRIPTIONS} resources`, {
          details: { field: 'uri', limit: MAX_SUBSCRIPTIONS },
        });
      subscribed.set(request.params.uri, resource);
    } catch (error) {
      throw protocolErrorOf(error, logger, 'resources/subscribe');
    }
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  return () => {
    off();
    clearTimeout(timer);
    subscribed.clear();
  };
}

function concerns(resource: TaskResource, frame: EventFrame, taskId: string): boolean {
  if (resource.kind === 'approvals') return frame.type.startsWith('approval.');
  if (resource.taskId !== taskId) return false;
  // A deliverable changes only as the run ends; the rest with every frame.
  return resource.kind !== 'deliverable' || frame.type === 'finish';
}
