import type { z } from 'zod';
import {
  type CancelAnswer,
  cancelAnswerSchema,
  type ContinueAnswer,
  continueAnswerSchema,
  type EndAnswer,
  endAnswerSchema,
  type ShutdownAnswer,
  shutdownAnswerSchema,
  type TaskSummary,
  tasksAnswerSchema,
} from './api/worker-answers.ts';
import {
  type HistoryRecord,
  historyPageSchema,
  historyRecordSchema,
  statusSchema,
  taskCreatedSchema,
  type WorkerStatus,
  type WorkerTask,
  type WorkerTaskRequest,
  workerTaskSchema,
} from './api/worker-schemas.ts';
import { errorFromAnswer, errorFromNoAnswer, excerpt, invalidAnswer, parseJson } from './worker-errors.ts';

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
 * every failure is an `AgencyError` whose `details` say the worker's `url`, and when it answered, the HTTP `status`
 * and the wire `error` code: `agent_busy` (retryable), `invalid_argument` (`validation_error`), `task_not_found`,
 * `task_active` (`task_in_progress`), `task_finished` (`already_completed`), `http_error` (others, 503 included);
 * `network_failed` or `timeout` when it did not answer; `response_invalid` when the answer is not the API.
 */
export type WorkerClient = {
  /** The worker's origin, e.g. `http://127.0.0.1:9001`. */
  readonly url: string;
  status(options?: CallOptions): Promise<WorkerStatus>;
  submit(request: WorkerTaskRequest, options?: CallOptions): Promise<TaskCreated>;
  task(taskId: string, options?: CallOptions): Promise<WorkerTask>;
  cancel(taskId: string, options?: CallOptions): Promise<CancelAnswer>;
  continue(taskId: string, prompt: string, options?: CallOptions): Promise<ContinueAnswer>;
  end(taskId: string, options?: CallOptions): Promise<EndAnswer>;
  debug(taskId: string, options?: CallOptions): Promise<HistoryRecord>;
  tasks(options?: CallOptions): Promise<TaskSummary[]>;
  history(page?: { page?: number; limit?: number }, options?: CallOptions): Promise<HistoryPage>;
  historyRecord(taskId: string, options?: CallOptions): Promise<HistoryRecord>;
  shutdown(request?: { timeout_seconds?: number; force?: boolean }, options?: CallOptions): Promise<ShutdownAnswer>;
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
    const what = `${method} ${path}`;
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
      throw errorFromNoAnswer(origin, what, error, {
        timedOut: timer.aborted && options.signal?.aborted !== true,
        timeoutMs: limit,
      });
    }
    if (text === undefined) throw invalidAnswer(origin, what, status, `larger than ${maxBytes} bytes`);
    if (status < 200 || status > 299) throw errorFromAnswer(origin, what, status, text);
    const json = parseJson(text);
    if (json === undefined) throw invalidAnswer(origin, what, status, `malformed JSON${excerpt(text)}`);
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw invalidAnswer(origin, what, status, issues(parsed.error));
    return parsed.data;
  }

  const id = (taskId: string) => encodeURIComponent(taskId);
  return {
    url: origin,
    status: (options) => call('GET', '/status', statusSchema, undefined, options),
    submit: (request, options) => call('POST', '/task', taskCreatedSchema, request, options),
    task: (taskId, options) => call('GET', `/task/${id(taskId)}`, workerTaskSchema, undefined, options),
    cancel: (taskId, options) => call('POST', `/task/${id(taskId)}/cancel`, cancelAnswerSchema, {}, options),
    continue: (taskId, prompt, options) =>
      call('POST', `/task/${id(taskId)}/continue`, continueAnswerSchema, { prompt }, options),
    end: (taskId, options) => call('POST', `/task/${id(taskId)}/end`, endAnswerSchema, {}, options),
    debug: (taskId, options) => call('GET', `/task/${id(taskId)}/debug`, historyRecordSchema, undefined, options),
    tasks: (options) => call('GET', '/tasks', tasksAnswerSchema, undefined, options),
    history: ({ page = 1, limit = 20 } = {}, options) =>
      call('GET', `/history?page=${page}&limit=${limit}`, historyPageSchema, undefined, options),
    historyRecord: (taskId, options) => call('GET', `/history/${id(taskId)}`, historyRecordSchema, undefined, options),
    shutdown: (request = {}, options) => call('POST', '/shutdown', shutdownAnswerSchema, request, options),
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
