// A fake agency API for developing the dashboard: canned tasks that match the wire schemas, a live run, approvals,
// uploads and an events stream that drops now and then. Plain node:http; serves web/dist beside the API.
//
//   npm run build && node dev/fake-api.ts          # http://127.0.0.1:8787/?token=dev-token
//   FAKE_PORT=9000 FAKE_TOKEN=secret FAKE_DROP_MS=0 node dev/fake-api.ts
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { DecisionRequest, ServerInfo, StartTaskRequest } from '../../src/api/schemas.ts';
import { ApiFailure, decide, resumeTask, startFromRequest, startTicker, stopTask } from './fake-runner.ts';
import { seed } from './fake-seed.ts';
import { streamEvents, streamStats } from './fake-sse.ts';
import { serveStatic } from './fake-static.ts';
import { inbox, summaryOf, tasks, type FakeTask } from './fake-store.ts';

const PORT = Number(process.env['FAKE_PORT'] ?? 8787);
const TOKEN = process.env['FAKE_TOKEN'] ?? 'dev-token';
const PRINCIPAL = 'alice@example.com';
const DIST = join(import.meta.dirname, '..', 'dist');
const CHAOS = {
  dropEveryMs: Number(process.env['FAKE_DROP_MS'] ?? 12_000),
  refuseOneIn: Number(process.env['FAKE_REFUSE_ONE_IN'] ?? 2),
};
const COOKIE = 'agency_session';
const sessions = new Set<string>();

const SERVER_INFO: ServerInfo = {
  version: '0.1.0',
  principal: PRINCIPAL,
  default_model: 'anthropic:claude-sonnet-4-5',
  models: ['anthropic:claude-sonnet-4-5', 'openai:gpt-4.1', 'openai:gpt-4.1-mini', 'replay:cassettes/summarise.jsonl'],
  approval_modes: ['file', 'auto'],
  policy: 'default',
  max_concurrent_runs: 4,
  limits: { body_bytes: 1_048_576, upload_bytes: 26_214_400, upload_files: 20 },
};

seed();
startTicker(Number(process.env['FAKE_TICK_MS'] ?? 900));

const server = createServer((request, response) => {
  handle(request, response).catch((failure: unknown) => {
    const known = failure instanceof ApiFailure;
    if (!known) console.error(failure);
    if (!response.headersSent)
      send(response, known ? failure.status : 500, {
        error: known ? failure.code : 'internal_error',
        message: known ? failure.message : 'Something went wrong in the fake server.',
        details: {},
      });
  });
});
server.listen(PORT, '127.0.0.1', () => {
  console.log(`fake agency API on http://127.0.0.1:${PORT}/?token=${TOKEN}`);
});

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', `http://${request.headers.host ?? 'localhost'}`);
  const { pathname } = url;
  const method = request.method ?? 'GET';
  if (method === 'GET' && url.searchParams.get('token') !== null && !pathname.startsWith('/agent/')) {
    if (url.searchParams.get('token') !== TOKEN)
      return send(response, 401, fail('unauthorized', 'The token in the link is not valid.'));
    response.writeHead(302, { location: '/', 'set-cookie': login() });
    return void response.end();
  }
  if (pathname === '/auth/login' && method === 'POST') {
    const body = (await readJson(request)) as { token?: string };
    if (body.token !== TOKEN)
      return send(response, 401, fail('unauthorized', 'That token is not valid for this server.'));
    response.writeHead(204, { 'set-cookie': login() });
    return void response.end();
  }
  if (pathname === '/auth/logout' && method === 'POST') {
    const id = sessionOf(request);
    if (id) sessions.delete(id);
    response.writeHead(204, { 'set-cookie': `${COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0` });
    return void response.end();
  }
  if (pathname === '/__fake/streams') return send(response, 200, streamStats);
  const authed = sessionOf(request) !== undefined;
  if (pathname === '/auth/session')
    return authed
      ? send(response, 200, { principal: PRINCIPAL })
      : send(response, 401, fail('unauthorized', 'Not logged in.'));
  if (!pathname.startsWith('/agent/')) return serveStatic(DIST, pathname, response);
  if (!authed)
    return send(response, 401, fail('unauthorized', 'Log in first: the session cookie is missing or has expired.'));
  return route(method, pathname, url, request, response);
}

async function route(
  method: string,
  pathname: string,
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (method === 'GET' && pathname === '/agent/server') return send(response, 200, SERVER_INFO);
  if (method === 'GET' && pathname === '/agent/tasks') return listTasks(url, response);
  if (method === 'POST' && pathname === '/agent/tasks/do/async') {
    const task = startFromRequest((await readJson(request)) as StartTaskRequest);
    return send(response, 202, {
      task_id: task.detail.id,
      status: task.detail.status,
      message: task.detail.status === 'created' ? 'Held for uploads; POST …/start starts it.' : 'Queued.',
    });
  }
  if (method === 'GET' && pathname === '/agent/approvals') return send(response, 200, { items: inbox(Date.now()) });
  const decision = /^\/agent\/approvals\/([^/]+)\/decision$/.exec(pathname);
  if (method === 'POST' && decision)
    return send(response, 200, decide(decision[1]!, (await readJson(request)) as DecisionRequest, PRINCIPAL));
  const match = /^\/agent\/tasks\/([^/]+)(?:\/(.*))?$/.exec(pathname);
  if (!match) return send(response, 404, fail('not_found', `No route ${method} ${pathname}.`));
  const task = tasks.get(match[1]!);
  if (!task) return send(response, 404, fail('not_found', `No task ${match[1]}.`));
  return taskRoute(method, match[2] ?? '', task, url, request, response);
}

async function taskRoute(
  method: string,
  rest: string,
  task: FakeTask,
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { detail } = task;
  if (method === 'GET' && rest === '')
    return send(response, 200, { ...detail, pending_approvals: summaryOf(task).pending_approvals });
  if (method === 'GET' && rest === 'events') return streamEvents(task, request, response, url, CHAOS);
  if (method === 'GET' && rest === 'result') {
    if (!task.result)
      return send(
        response,
        409,
        fail('task_in_progress', `Task ${detail.id} is ${detail.status}; its result is not ready.`),
      );
    return send(response, 200, task.result);
  }
  if (method === 'POST' && rest === 'stop') {
    const body = (await readJson(request)) as { reason?: 'stopped' | 'cancelled' };
    stopTask(task, body.reason ?? 'stopped');
    return send(response, 200, { task_id: detail.id, status: detail.status, message: `Stopped ${detail.id}.` });
  }
  if (method === 'POST' && rest === 'resume') {
    const body = (await readJson(request)) as { budgets?: Record<string, number> };
    resumeTask(task, body.budgets);
    return send(response, 200, {
      task_id: detail.id,
      status: detail.status,
      message: `Resumed ${detail.id}${body.budgets ? ' with raised budgets' : ''}.`,
    });
  }
  if (method === 'POST' && rest === 'upload') {
    if (detail.status !== 'created')
      return send(
        response,
        409,
        fail('conflict', `Task ${detail.id} has started; files can only be uploaded while it is held.`),
      );
    const form = await new Request('http://fake/upload', {
      method: 'POST',
      headers: request.headers as Record<string, string>,
      body: request as unknown as ReadableStream,
      duplex: 'half',
    } as RequestInit).formData();
    const files = form.getAll('files').filter((value): value is File => typeof value !== 'string');
    if (files.some((file) => file.name.includes('..') || file.name.startsWith('/')))
      return send(response, 400, fail('validation_error', 'A file name may not contain ".." or start with "/".'));
    detail.files.push(...files.map((file) => `task/${file.name}`));
    return send(response, 200, {
      task_id: detail.id,
      files: files.map((file) => ({ name: file.name, size: file.size })),
    });
  }
  if (method === 'POST' && rest === 'start') {
    if (detail.status !== 'created')
      return send(response, 409, fail('conflict', `Task ${detail.id} is ${detail.status}, not held.`));
    detail.status = 'queued';
    return send(response, 200, { task_id: detail.id, status: detail.status, message: 'Queued.' });
  }
  if (method === 'GET' && rest.startsWith('deliverables/')) {
    const path = decodeURIComponent(rest.slice('deliverables/'.length));
    const content = task.files.get(path);
    if (content === undefined) return send(response, 404, fail('not_found', `No deliverable ${path} in ${detail.id}.`));
    response.writeHead(200, {
      'content-type': 'text/markdown; charset=utf-8',
      'content-disposition': `attachment; filename="${path.split('/').pop()}"`,
    });
    return void response.end(content);
  }
  return send(response, 404, fail('not_found', `No route ${method} /agent/tasks/${detail.id}/${rest}.`));
}

function listTasks(url: URL, response: ServerResponse): void {
  const filters = (url.searchParams.get('status') ?? '').split(',').filter(Boolean);
  const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 25) || 25);
  const offset = Number(url.searchParams.get('cursor') ?? 0) || 0;
  const rows = [...tasks.values()]
    .map(summaryOf)
    .filter(
      (row) =>
        filters.length === 0 ||
        filters.some((filter) =>
          filter === 'stuck'
            ? row.stuck !== null
            : filter === 'active'
              ? ['created', 'queued', 'running', 'waiting_approval'].includes(row.status)
              : row.status === filter,
        ),
    )
    .sort((a, b) => b.created_at.localeCompare(a.created_at));
  const page = rows.slice(offset, offset + limit);
  send(response, 200, { items: page, next_cursor: offset + limit < rows.length ? String(offset + limit) : null });
}

function login(): string {
  const id = randomBytes(18).toString('base64url');
  sessions.add(id);
  return `${COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict`;
}

function sessionOf(request: IncomingMessage): string | undefined {
  const cookie = request.headers.cookie ?? '';
  const id = cookie
    .split(/;\s*/)
    .find((part) => part.startsWith(`${COOKIE}=`))
    ?.slice(COOKIE.length + 1);
  return id && sessions.has(id) ? id : undefined;
}

function fail(error: string, message: string): { error: string; message: string; details: Record<string, unknown> } {
  return { error, message, details: {} };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiFailure(400, 'validation_error', 'The body is not valid JSON.');
  }
}
