// A stateful stand-in for `agency worker` (seed 004 appendix A), on node:http: `/status` (503 for tasks while
// `starting`), `/task` (409 `agent_busy` while a task runs), `/task/:id`, cancel, continue, end, debug, `/tasks`,
// `/history`, `/shutdown` (409 `task_in_progress` unless `force`, then drain and close). Every answer it sends is
// checked against the wire contract's zod schemas first, so the fake cannot drift from it; a fault can make one
// route answer badly on purpose (malformed JSON, a 500, no answer, a wrong shape).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import {
  cancelAnswerSchema,
  continueAnswerSchema,
  endAnswerSchema,
  shutdownAnswerSchema,
  tasksAnswerSchema,
} from '../../src/fleet/api/worker-answers.ts';
import {
  continueRequestSchema,
  historyPageSchema,
  historyRecordSchema,
  shutdownRequestSchema,
  statusSchema,
  taskCreatedSchema,
  taskRequestSchema,
  workerErrorSchema,
  workerTaskSchema,
  type WorkerStatus,
} from '../../src/fleet/api/worker-schemas.ts';
import { createFakeTasks, defaultBehaviour, type FakeBehaviour, type FakeTask } from './fake-worker-tasks.ts';

/** A bad answer on purpose. */
export type FakeFault = 'malformed' | 'error500' | 'hang' | 'wrong-shape';

/** Options of {@link startFakeWorker}. */
export type FakeWorkerOptions = {
  name?: string;
  type?: WorkerStatus['type'];
  port?: number;
  host?: string;
  /** How long `/status` says `starting`, and `/task` answers 503. */
  startingMs?: number;
  behaviour?: FakeBehaviour;
  /** Faults by route: `/status`, `/task` (POST), `/task/:id` (GET), or `*`. */
  faults?: Record<string, FakeFault>;
  /** Leave the pid out of `/status`'s config. */
  hidePid?: boolean;
  /** Called once a shutdown has drained and the server closed. */
  onShutdown?: () => void;
};

/** A running fake worker. */
export type FakeWorker = {
  url: string;
  port: number;
  name: string;
  tasks: Map<string, FakeTask>;
  /** Answers the fake refused to send because they broke the contract: a test asserts this stays empty. */
  contractBreaks: string[];
  setFault(route: string, fault: FakeFault | undefined): void;
  close(): Promise<void>;
};

/** Starts a fake worker on `port` (0: any free one) of 127.0.0.1. */
export async function startFakeWorker({
  name = 'fake-worker',
  type = 'agent',
  port = 0,
  host = '127.0.0.1',
  startingMs = 0,
  behaviour = defaultBehaviour,
  faults = {},
  hidePid = false,
  onShutdown,
}: FakeWorkerOptions = {}): Promise<FakeWorker> {
  const bootedAt = Date.now();
  const log: WorkerStatus['log'] = [];
  const onLog = (message: string, level = 'info') => {
    log.push({ time: new Date().toISOString(), level, message });
    if (log.length > 50) log.shift();
  };
  const fleet = createFakeTasks({ behaviour, onLog });
  const contractBreaks: string[] = [];
  let stopping = false;
  let boundPort = port;

  const status = (): WorkerStatus => {
    const current = fleet.current();
    return {
      type,
      interfaces: type === 'agent' ? ['statusable', 'taskable', 'observable'] : ['statusable', 'observable'],
      name,
      version: '0.0.0-fake',
      state: stopping ? 'stopping' : Date.now() - bootedAt < startingMs ? 'starting' : current ? 'working' : 'idle',
      uptime_seconds: Math.floor((Date.now() - bootedAt) / 1000),
      current_task: current
        ? {
            id: current.task.task_id,
            started_at: current.task.started_at ?? current.createdAt,
            prompt_preview: current.prompt.slice(0, 80),
          }
        : null,
      config: { port: boundPort, executor: 'fake', model: 'fake-model', ...(hidePid ? {} : { pid: process.pid }) },
      log: [...log],
    };
  };

  const server = createServer((request, response) => {
    void route(request, response).catch((error: unknown) => {
      contractBreaks.push(String(error));
      if (!response.headersSent) fail(response, 500, 'internal_error', String(error));
    });
  });

  const send = <S extends z.ZodType>(response: ServerResponse, code: number, schema: S, body: z.input<S>) => {
    const checked = schema.safeParse(body);
    if (!checked.success) {
      contractBreaks.push(`${code} ${JSON.stringify(body)}: ${checked.error.message}`);
      throw new Error(`the fake worker broke the contract: ${checked.error.message}`);
    }
    response.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const fail = (response: ServerResponse, code: number, error: string, message: string, extra = {}) => {
    const retryable = ['agent_busy', 'task_in_progress', 'internal_error', 'service_unavailable'].includes(error);
    send(response, code, workerErrorSchema, { error, message, details: { retryable }, ...extra });
  };

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const path = url.pathname;
    const method = request.method ?? 'GET';
    const key = method === 'POST' && path === '/task' ? '/task' : /^\/task\/[^/]+$/.test(path) ? '/task/:id' : path;
    const fault = faults[key] ?? faults['*'];
    if (fault && (await applyFault(fault, response))) return;
    const body = method === 'POST' ? await readBody(request) : undefined;
    if (body === INVALID) return fail(response, 400, 'validation_error', 'the body is not JSON');

    if (method === 'GET' && path === '/status') return send(response, 200, statusSchema, status());
    if (method === 'GET' && path === '/tasks') {
      const list = [...fleet.tasks.values()].reverse().map(({ task }) => task);
      return send(response, 200, tasksAnswerSchema, { tasks: list });
    }
    if (method === 'GET' && path === '/history') {
      const page = Number(url.searchParams.get('page') ?? 1);
      const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 20));
      const all = [...fleet.tasks.values()].reverse();
      const items = all
        .slice((page - 1) * limit, page * limit)
        .map(({ task, prompt }) => ({ ...withoutOutput(task), prompt_preview: prompt.slice(0, 80) }));
      return send(response, 200, historyPageSchema, { items, page, limit, total: all.length });
    }
    if (method === 'POST' && path === '/shutdown') return shutdown(body, response);
    if (method === 'POST' && path === '/task') return submit(body, response);

    const match = /^\/(task|history)\/([^/]+)(?:\/(cancel|continue|end|debug))?$/.exec(path);
    const record = match ? fleet.get(decodeURIComponent(match[2] ?? '')) : undefined;
    if (!match) return fail(response, 404, 'not_found', `No route ${method} ${path}`);
    if (!record) return fail(response, 404, 'not_found', `Task ${match[2]} not found`);
    const action = match[3];
    if (method === 'GET' && match[1] === 'task' && !action) return send(response, 200, workerTaskSchema, record.task);
    if (method === 'GET' && (action === 'debug' || (match[1] === 'history' && !action))) {
      const { task, prompt, log: lines, stdout, stderr } = record;
      return send(response, 200, historyRecordSchema, { ...task, prompt, log: lines, stdout, stderr });
    }
    if (method !== 'POST' || match[1] !== 'task') return fail(response, 404, 'not_found', `No route ${method} ${path}`);
    const { task } = record;
    if (fleet.isFinal(task.state)) {
      return fail(response, 409, 'already_completed', `Task ${task.task_id} has already ${task.state}`, {
        final_state: task.state,
      });
    }
    if (action === 'cancel') {
      fleet.cancel(record, 10);
      return send(response, 200, cancelAnswerSchema, {
        task_id: task.task_id,
        state: task.state,
        message: 'Task cancellation initiated',
      });
    }
    if (task.state !== 'idle') {
      return fail(response, 409, 'task_in_progress', `Task ${task.task_id} is ${task.state}`, {
        task_id: task.task_id,
      });
    }
    if (action === 'end') {
      fleet.end(record);
      return send(response, 200, endAnswerSchema, { task_id: task.task_id, state: task.state, output: task.output });
    }
    const parsed = continueRequestSchema.safeParse(body);
    if (!parsed.success) return fail(response, 400, 'validation_error', fieldError(parsed.error));
    const busy = fleet.current();
    if (busy) return busyAnswer(response, busy);
    fleet.continueTask(record, parsed.data.prompt);
    return send(response, 200, continueAnswerSchema, { task_id: task.task_id, state: task.state });
  }

  function busyAnswer(response: ServerResponse, busy: FakeTask): void {
    fail(response, 409, 'agent_busy', `Agent is currently processing ${busy.task.task_id}`, {
      current_task: busy.task.task_id,
    });
  }

  function submit(body: unknown, response: ServerResponse): void {
    const parsed = taskRequestSchema.safeParse(body);
    if (!parsed.success) return fail(response, 400, 'validation_error', fieldError(parsed.error));
    const state = status().state;
    if (state === 'starting' || state === 'stopping')
      return fail(response, 503, 'service_unavailable', `The worker is ${state}`);
    const busy = fleet.current();
    if (busy) return busyAnswer(response, busy);
    const { prompt, session_id: sessionId, project } = parsed.data;
    const record = fleet.create(project ? `${project.prompt}\n\n${prompt}` : prompt, sessionId);
    const { task_id, session_id } = record.task;
    send(response, 201, taskCreatedSchema, { task_id, session_id, status: 'queued' });
  }

  function shutdown(body: unknown, response: ServerResponse): void {
    const parsed = shutdownRequestSchema.safeParse(body ?? {});
    if (!parsed.success) return fail(response, 400, 'validation_error', fieldError(parsed.error));
    const { timeout_seconds: drain = 30, force = false } = parsed.data;
    const busy = fleet.current();
    if (busy && !force) {
      return fail(
        response,
        409,
        'task_in_progress',
        `Task ${busy.task.task_id} is running. Use force=true to terminate.`,
        {
          task_id: busy.task.task_id,
        },
      );
    }
    stopping = true;
    if (busy) fleet.cancel(busy, 10);
    send(response, 202, shutdownAnswerSchema, { message: 'Shutdown initiated', drain_timeout: drain });
    setTimeout(() => void close().then(() => onShutdown?.()), busy ? 50 : 10);
  }

  async function applyFault(fault: FakeFault, response: ServerResponse): Promise<boolean> {
    if (fault === 'hang') return new Promise(() => undefined).then(() => true);
    if (fault === 'malformed') response.writeHead(200, { 'content-type': 'application/json' }).end('{"state": "idle",');
    if (fault === 'error500') response.writeHead(500, { 'content-type': 'text/html' }).end('<h1>oops</h1>');
    if (fault === 'wrong-shape')
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"state":"busy"}');
    return true;
  }

  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  boundPort = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${boundPort}`,
    port: boundPort,
    name,
    tasks: fleet.tasks,
    contractBreaks,
    setFault(route, fault) {
      if (fault) faults[route] = fault;
      else delete faults[route];
    },
    close,
  };
}

const INVALID = Symbol('invalid');

async function readBody(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return INVALID;
  }
}

function fieldError(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body';
}

function withoutOutput<T extends { output: unknown }>(task: T): Omit<T, 'output'> {
  const { output: _output, ...rest } = task;
  return rest;
}
