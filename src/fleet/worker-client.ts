import type { z } from 'zod';
import {
  type CancelResponse,
  cancelResponseSchema,
  type ContinueResponse,
  continueResponseSchema,
  type EndResponse,
  endResponseSchema,
  type HistoryRecord,
  historyPageSchema,
  historyRecordSchema,
  type ShutdownResponse,
  shutdownResponseSchema,
  statusSchema,
  taskCreatedSchema,
  taskListSchema,
  type WorkerStatus,
  type WorkerTask,
  type WorkerTaskRequest,
  workerTaskSchema,
} from './api/worker-schemas.ts';
import {
  type Asked,
  errorFromAnswer,
  errorFromNoAnswer,
  excerpt,
  invalidAnswer,
  parseJson,
} from '../api/answer-errors.ts';

/** A `fetch` as the Web platform defines it. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** Options for {@link createWorkerClient}. */
export type WorkerClientOptions = {
  /** @default globalThis.fetch */
  fetch?: FetchFunction;
  /** How long a request may take, connection to last byte. @default 5000 */
  timeoutMs?: number;
  /** A bearer token, for a worker bound beyond loopback. */
  token?: string;
  /** The largest answer read; a larger one is `response_invalid`. @default 64 MiB */
  maxBytes?: number;
};

/** Per call: a caller's signal, and another timeout. */
export type CallOptions = { signal?: AbortSignal; timeoutMs?: number };

/** A task as `POST /task` accepts it. */
export type TaskCreated = z.infer<typeof taskCreatedSchema>;
/** A page of `GET /history`. */
export type HistoryPage = z.infer<typeof historyPageSchema>;

/**
 * A typed client of one worker's API (seed 004 appendix A). Every answer is parsed with the contract's zod schemas;
 * every failure is an `AgencyError` (read by `api/answer-errors.ts`, as `agency/client` reads the server's) whose
 * `details` say the worker's `url`, and when it answered, the HTTP `status` and the wire `error` code. Its code is
 * the one the worker reported: `agent_busy` (retryable), `invalid_argument` (`validation_error`), `task_not_found`,
 * `task_active` (`task_in_progress`), `task_finished` (`already_completed`), `worker_unavailable` (503: starting or
 * stopping); `http_error` for an error answer outside the API; `network_failed` or `timeout` when it did not answer;
 * `response_invalid` when the answer is not the API.
 */
export type WorkerClient = {
  /** The worker's origin, e.g. `http://127.0.0.1:9001`. */
  readonly url: string;
  status(options?: CallOptions): Promise<WorkerStatus>;
  submit(request: WorkerTaskRequest, options?: CallOptions): Promise<TaskCreated>;
  task(taskId: string, options?: CallOptions): Promise<WorkerTask>;
  cancel(taskId: string, options?: CallOptions): Promise<CancelResponse>;
  continue(taskId: string, prompt: string, options?: CallOptions): Promise<ContinueResponse>;
  end(taskId: string, options?: CallOptions): Promise<EndResponse>;
  debug(taskId: string, options?: CallOptions): Promise<HistoryRecord>;
  /** The tasks the worker holds: the running one and the idle sessions. */
  tasks(options?: CallOptions): Promise<WorkerTask[]>;
  history(page?: { page?: number; limit?: number }, options?: CallOptions): Promise<HistoryPage>;
  historyRecord(taskId: string, options?: CallOptions): Promise<HistoryRecord>;
  shutdown(request?: { timeout_seconds?: number; force?: boolean }, options?: CallOptions): Promise<ShutdownResponse>;
};

/**
 * The client of the worker at `url`.
 *
 * @example
 * const worker = createWorkerClient('http://127.0.0.1:9001');
 * const { task_id } = await worker.submit({ prompt: 'Summarise README.md' });
 */
export function createWorkerClient(
  url: string,
  { fetch, timeoutMs = 5000, token, maxBytes = 64 * 1024 * 1024 }: WorkerClientOptions = {},
): WorkerClient {
  const origin = url.replace(/\/+$/, '');
  const doFetch: FetchFunction = fetch ?? ((input, init) => globalThis.fetch(input, init));

  async function call<T>(
    method: 'GET' | 'POST',
    path: string,
    schema: z.ZodType<T>,
    body: unknown,
    options: CallOptions = {},
  ): Promise<T> {
    const asked: Asked = { where: `worker ${origin}: ${method} ${path}`, peer: 'the worker', details: { url: origin } };
    const limit = options.timeoutMs ?? timeoutMs;
    const timer = AbortSignal.timeout(limit);
    const signal = options.signal ? AbortSignal.any([options.signal, timer]) : timer;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let text: string | undefined;
    try {
      const response = await doFetch(`${origin}${path}`, {
        method,
        headers,
        signal,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      status = response.status;
      text = await readText(response, maxBytes);
    } catch (error) {
      const timedOut = timer.aborted && options.signal?.aborted !== true;
      throw errorFromNoAnswer(error, asked, {
        signal: options.signal,
        ...(timedOut ? { timedOutAfterMs: limit } : {}),
      });
    }
    if (text === undefined) throw invalidAnswer(asked, status, `larger than ${maxBytes} bytes`);
    if (status < 200 || status > 299) throw errorFromAnswer(status, text, asked);
    const json = parseJson(text);
    if (json === undefined) throw invalidAnswer(asked, status, `malformed JSON${excerpt(text)}`);
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw invalidAnswer(asked, status, issues(parsed.error));
    return parsed.data;
  }

  const id = (taskId: string) => encodeURIComponent(taskId);
  return {
    url: origin,
    status: (options) => call('GET', '/status', statusSchema, undefined, options),
    submit: (request, options) => call('POST', '/task', taskCreatedSchema, request, options),
    task: (taskId, options) => call('GET', `/task/${id(taskId)}`, workerTaskSchema, undefined, options),
    cancel: (taskId, options) => call('POST', `/task/${id(taskId)}/cancel`, cancelResponseSchema, {}, options),
    continue: (taskId, prompt, options) =>
      call('POST', `/task/${id(taskId)}/continue`, continueResponseSchema, { prompt }, options),
    end: (taskId, options) => call('POST', `/task/${id(taskId)}/end`, endResponseSchema, {}, options),
    debug: (taskId, options) => call('GET', `/task/${id(taskId)}/debug`, historyRecordSchema, undefined, options),
    tasks: async (options) => (await call('GET', '/tasks', taskListSchema, undefined, options)).items,
    history: ({ page = 1, limit = 20 } = {}, options) =>
      call('GET', `/history?page=${page}&limit=${limit}`, historyPageSchema, undefined, options),
    historyRecord: (taskId, options) => call('GET', `/history/${id(taskId)}`, historyRecordSchema, undefined, options),
    shutdown: (request = {}, options) => call('POST', '/shutdown', shutdownResponseSchema, request, options),
  };
}

// The body as text, or undefined when it is over `maxBytes` (leaving the loop cancels the rest of the stream).
async function readText(response: Response, maxBytes: number): Promise<string | undefined> {
  if (!response.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for await (const chunk of response.body) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) return undefined;
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

// The first few problems, each with its field: `state: Invalid option: expected one of …`.
function issues(error: z.ZodError): string {
  const list = error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  return `${list.join('; ')}${error.issues.length > 3 ? `; and ${error.issues.length - 3} more` : ''}`;
}
