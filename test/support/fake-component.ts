// A stand-in for a fleet component, for what the real `agency worker` does not do: answer badly (malformed JSON, a
// 500 page, no answer, a shape outside the contract), be a component of another type (a view, a director), or hold
// a state for as long as a benchmark needs. It answers `GET /status`, takes `POST /task` (201, and works from then
// on; 503 while `starting`) and answers `GET /task/:id` with the task; a fault makes one route answer badly on purpose. Every good answer
// is checked against the wire contract first, so the stand-in cannot drift from it.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseJson } from '../../src/api/answer-errors.ts';
import type { AddressInfo } from 'node:net';
import type { z } from 'zod';
import { newId } from '../../src/core/ids.ts';
import {
  statusSchema,
  taskCreatedSchema,
  taskRequestSchema,
  workerErrorSchema,
  type WorkerStatus,
  type WorkerTask,
  workerTaskSchema,
} from '../../src/fleet/api/worker-schemas.ts';

/** A bad answer on purpose. */
export type FakeFault = 'malformed' | 'error500' | 'hang' | 'wrong-shape';

/** Options of {@link startFakeComponent}. */
export type FakeComponentOptions = {
  name?: string;
  type?: WorkerStatus['type'];
  /** Whether `/status` lists the `taskable` interface (a director that is, is the manager). @default type === 'agent' */
  taskable?: boolean;
  port?: number;
  /** The state `/status` reports until a task is taken (then `working`). @default 'idle' */
  state?: WorkerStatus['state'];
  /** Faults by route: `/status`, `/task` (POST), `/task/:id` (GET), or `*`. */
  faults?: Record<string, FakeFault>;
};

/** A running fake component. */
export type FakeComponent = {
  url: string;
  port: number;
  name: string;
  /** The tasks it took. */
  tasks: ReadonlyMap<string, WorkerTask>;
  /** Every `POST /task` body it received that the worker's contract refuses: a client that broke it. */
  contractBreaks: string[];
  setFault(route: string, fault: FakeFault | undefined): void;
  close(): Promise<void>;
};

/** Starts a fake component on `port` (0: any free one) of 127.0.0.1. */
export async function startFakeComponent({
  name = 'fake',
  type = 'agent',
  taskable = type === 'agent',
  port = 0,
  state = 'idle',
  faults = {},
}: FakeComponentOptions = {}): Promise<FakeComponent> {
  const bootedAt = Date.now();
  const tasks = new Map<string, WorkerTask>();
  let boundPort = port;
  const status = (): WorkerStatus => {
    const current = [...tasks.values()][0];
    return {
      type,
      interfaces: taskable ? ['statusable', 'taskable', 'observable'] : ['statusable', 'observable'],
      name,
      version: '0.0.0-fake',
      state: current ? 'working' : state,
      uptime_seconds: Math.floor((Date.now() - bootedAt) / 1000),
      current_task: current
        ? { id: current.task_id, started_at: current.started_at!, prompt_preview: 'a fake task' }
        : null,
      config: { port: boundPort, pid: process.pid },
      log: [],
    };
  };
  const send = <S extends z.ZodType>(response: ServerResponse, code: number, schema: S, body: z.input<S>) => {
    schema.parse(body);
    response.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    const method = request.method ?? 'GET';
    const key = method === 'POST' && path === '/task' ? '/task' : /^\/task\/[^/]+$/.test(path) ? '/task/:id' : path;
    const fault = faults[key] ?? faults['*'];
    if (fault) return applyFault(fault, response);
    if (method === 'POST' && path === '/task' && state === 'starting') {
      request.resume();
      const body = { error: 'service_unavailable', message: 'The worker is starting', details: { retryable: true } };
      return send(response, 503, workerErrorSchema, body);
    }
    if (method === 'POST' && path === '/task') return void takeTask(request, response);
    request.resume();
    if (method === 'GET' && path === '/status') return send(response, 200, statusSchema, status());
    const task = tasks.get(path.slice('/task/'.length));
    if (method === 'GET' && task) return send(response, 200, workerTaskSchema, task);
    const body = { error: 'not_found', message: `No ${method} ${path} here`, details: { retryable: false } };
    send(response, 404, workerErrorSchema, body);
  });
  const contractBreaks: string[] = [];
  const takeTask = async (request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    const checked = taskRequestSchema.safeParse(parseJson(text));
    if (!checked.success) contractBreaks.push(`POST /task ${text.slice(0, 200)}: ${checked.error.message}`);
    const task = newTask();
    tasks.set(task.task_id, task);
    send(response, 201, taskCreatedSchema, { task_id: task.task_id, session_id: task.session_id, status: 'working' });
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  boundPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${boundPort}`,
    port: boundPort,
    name,
    tasks,
    contractBreaks,
    setFault(route, next) {
      if (next) faults[route] = next;
      else delete faults[route];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function applyFault(fault: FakeFault, response: ServerResponse): void {
  if (fault === 'hang') return;
  if (fault === 'malformed') response.writeHead(200, { 'content-type': 'application/json' }).end('{"state": "idle",');
  if (fault === 'error500') response.writeHead(500, { 'content-type': 'text/html' }).end('<h1>oops</h1>');
  if (fault === 'wrong-shape') response.writeHead(200, { 'content-type': 'application/json' }).end('{"state":"busy"}');
}

function newTask(): WorkerTask {
  return {
    task_id: `task-${newId('task').slice(5).toLowerCase()}`,
    state: 'working',
    executor: 'claude',
    exit_code: null,
    started_at: new Date().toISOString(),
    completed_at: null,
    duration_seconds: 0,
    output: null,
    error: null,
    session_id: randomUUID(),
    token_usage: null,
    cost_usd: null,
    turns: 1,
  };
}
