import { errorFromResponse } from './api-error.ts';
import type {
  DecisionRequest,
  FleetTask,
  FleetTaskAction,
  FleetTaskCreated,
  FleetTaskRequest,
  FleetTaskSummary,
  FleetView,
  HistoryPage,
  InboxItem,
  ServerInfo,
  StartTaskRequest,
  TaskAction,
  TaskDetail,
  TaskList,
  TaskResult,
  UploadResult,
} from './types.ts';

type Method = 'GET' | 'POST';

/** Told of every 401 outside /auth/, so the app can show the login page. */
let onUnauthorized: () => void = () => {};

/** Sets what happens when the session is gone. */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

async function call(method: Method, path: string, body?: unknown | FormData): Promise<Response> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { accept: 'application/json', 'content-type': 'application/json' };
  }
  const response = await fetch(path, init);
  if (response.ok) return response;
  if (response.status === 401 && !path.startsWith('/auth/')) onUnauthorized();
  throw await errorFromResponse(response);
}

async function json<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const response = await call(method, path, body);
  return (await response.json()) as T;
}

function task(id: string): string {
  return `/agent/tasks/${encodeURIComponent(id)}`;
}

function worker(name: string): string {
  return `/agent/fleet/workers/${encodeURIComponent(name)}`;
}

function workerTask(name: string, id: string): string {
  return `${worker(name)}/tasks/${encodeURIComponent(id)}`;
}

/** The session: who is logged in, logging in with a token, logging out. */
export const auth = {
  session: () => json<{ principal: string }>('GET', '/auth/session'),
  login: async (token: string): Promise<void> => void (await call('POST', '/auth/login', { token })),
  logout: async (): Promise<void> => void (await call('POST', '/auth/logout')),
};

/** Options of the task list. */
export type ListTasksOptions = { status?: string; cursor?: string; limit?: number };

/** The agency HTTP API, as the dashboard uses it. */
export const api = {
  server: () => json<ServerInfo>('GET', '/agent/server'),
  listTasks({ status, cursor, limit }: ListTasksOptions = {}): Promise<TaskList> {
    const query = new URLSearchParams();
    if (status) query.set('status', status);
    if (cursor) query.set('cursor', cursor);
    if (limit) query.set('limit', String(limit));
    const search = query.toString();
    return json<TaskList>('GET', `/agent/tasks${search ? `?${search}` : ''}`);
  },
  task: (id: string) => json<TaskDetail>('GET', task(id)),
  result: (id: string, view: 'minimal' | 'summary' | 'full' = 'summary') =>
    json<TaskResult>('GET', `${task(id)}/result?view=${view}`),
  start: (request: StartTaskRequest) => json<TaskAction>('POST', '/agent/tasks/do/async', request),
  upload(id: string, files: readonly File[]): Promise<UploadResult> {
    const form = new FormData();
    for (const file of files) form.append('files', file, file.name);
    return json<UploadResult>('POST', `${task(id)}/upload`, form);
  },
  startHeld: (id: string) => json<TaskAction>('POST', `${task(id)}/start`, {}),
  stop: (id: string, reason: 'stopped' | 'cancelled' = 'stopped') =>
    json<TaskAction>('POST', `${task(id)}/stop`, { reason }),
  resume: (id: string, budgets?: StartTaskRequest['budgets']) =>
    json<TaskAction>('POST', `${task(id)}/resume`, budgets ? { budgets } : {}),
  approvals: () => json<{ items: InboxItem[] }>('GET', '/agent/approvals'),
  decide: (requestId: string, decision: DecisionRequest) =>
    json<unknown>('POST', `/agent/approvals/${encodeURIComponent(requestId)}/decision`, decision),
};

/** The workers the server found, and tasks on them through the server. */
export const fleetApi = {
  list: () => json<FleetView>('GET', '/agent/fleet'),
  submit: (name: string, request: FleetTaskRequest) => json<FleetTaskCreated>('POST', `${worker(name)}/tasks`, request),
  task: (name: string, id: string) => json<FleetTask>('GET', workerTask(name, id)),
  cancel: (name: string, id: string) => json<FleetTaskAction>('POST', `${workerTask(name, id)}/cancel`, {}),
  continue: (name: string, id: string, prompt: string) =>
    json<FleetTaskAction>('POST', `${workerTask(name, id)}/continue`, { prompt }),
  end: (name: string, id: string) => json<FleetTaskAction>('POST', `${workerTask(name, id)}/end`, {}),
  history: (name: string, page: number, limit: number) =>
    json<HistoryPage>('GET', `${worker(name)}/history?page=${page}&limit=${limit}`),
  /** The newest tasks of the fleet's database (a server with AGENCY_DATABASE_URL), on any worker. */
  tasks: (limit: number) => json<{ items: FleetTaskSummary[] }>('GET', `/agent/fleet/tasks?limit=${limit}`),
};

/** A fleet task's events from the fleet's database, from after `seq` (0: from the start). */
export function fleetEventsUrl(taskId: string, after: number): string {
  const base = `/agent/fleet/tasks/${encodeURIComponent(taskId)}/events`;
  return after > 0 ? `${base}?after=${after}` : base;
}

/** The fleet's live feed: a `fleet` event with every component, at once and on every change. */
export const FLEET_EVENTS_URL = '/agent/fleet/events';

/** Where a deliverable downloads from: each segment of its path encoded, the slashes kept. */
export function deliverableUrl(taskId: string, path: string): string {
  return `${task(taskId)}/deliverables/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** The task's event stream, from after `seq` (0: from the start). */
export function eventsUrl(taskId: string, after: number): string {
  return after > 0 ? `${task(taskId)}/events?after=${after}` : `${task(taskId)}/events`;
}
