import { eventFrameSchema } from '../api/schemas.ts';
import { backoffDelay } from '../core/backoff.ts';
import { AgencyError } from '../core/errors.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import { invalidResponse, networkError } from './client-errors.ts';
import { createSseParser, type SseMessage } from './sse-parser.ts';
import type { Transport } from './transport.ts';

/** How `client.tasks.events` reconnects after a dropped connection. */
export type ReconnectOptions = {
  /** The first wait before reconnecting; it doubles with each failed attempt in a row. @default 250 */
  initialDelayMs?: number;
  /** The longest wait between attempts. @default 5000 */
  maxDelayMs?: number;
  /** Failed attempts in a row (no frame and no heartbeat in between) before the iterator throws. @default 20 */
  maxAttempts?: number;
  /** A connection that sends nothing, not even a heartbeat, for this long is taken for dropped. @default 45000 */
  idleTimeoutMs?: number;
};

/** What `onReconnect` is told before each wait. */
export type ReconnectInfo = {
  /** 1 for the first attempt after a drop, counting up while attempts keep failing. */
  attempt: number;
  delayMs: number;
  /** The seq the next attempt resumes after. */
  after: number;
  /** Why the connection was lost. */
  error: AgencyError;
};

/** Options of `client.tasks.events`. */
export type EventsOptions = {
  /** Start after this seq (a frame's `seq`); 0 or absent starts at the first frame. */
  after?: number;
  /** Ends the iteration: the iterator throws an `AgencyError` with code `aborted`. */
  signal?: AbortSignal;
  reconnect?: ReconnectOptions;
  /** Called before each wait to reconnect, e.g. to show "reconnecting…". */
  onReconnect?(info: ReconnectInfo): void;
};

const RETRY_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * The frames of a task's event stream, each once and in order, across dropped connections: a drop (a network error,
 * a stream that ends without the server's `end`, or silence past `idleTimeoutMs`) reconnects with `Last-Event-ID`
 * set to the last seq yielded, after a capped, jittered, doubling wait. The iteration ends when the server ends the
 * stream after the run's finish.
 */
export async function* followEvents(transport: Transport, path: string, options: EventsOptions = {}) {
  const { signal, onReconnect } = options;
  const { initialDelayMs = 250, maxDelayMs = 5000, maxAttempts = 20, idleTimeoutMs = 45_000 } = options.reconnect ?? {};
  let last = options.after ?? 0;
  let failures = 0;
  for (;;) {
    if (signal?.aborted) throw networkError(signal.reason, `GET ${path}`, signal);
    let lost: AgencyError;
    try {
      for await (const message of connect(transport, path, last, signal, idleTimeoutMs)) {
        if (message.kind === 'heartbeat') failures = 0;
        if (message.kind === 'end') return;
        if (message.kind !== 'frame' || message.frame.seq <= last) continue;
        failures = 0;
        last = message.frame.seq;
        yield message.frame;
      }
      if (signal?.aborted) throw networkError(signal.reason, `GET ${path}`, signal);
      lost = new AgencyError('network_failed', `GET ${path}: the stream ended before the run's end`);
    } catch (error) {
      if (signal?.aborted) throw networkError(error, `GET ${path}`, signal);
      if (!AgencyError.isInstance(error) || !isDrop(error)) throw error;
      lost = error;
    }
    failures++;
    if (failures > maxAttempts) throw lost;
    const delayMs = backoffDelay(failures, { initialMs: initialDelayMs, maxMs: maxDelayMs });
    onReconnect?.({ attempt: failures, delayMs, after: last, error: lost });
    await sleep(delayMs, signal);
  }
}

// A lost connection is worth another attempt; a refusal (401, 404, …) or a malformed answer is not.
function isDrop(error: AgencyError): boolean {
  if (error.code === 'network_failed') return true;
  const status = error.details?.status;
  return error.code !== 'response_invalid' && typeof status === 'number' && RETRY_STATUSES.has(status);
}

type StreamMessage = { kind: 'frame'; frame: EventFrame } | { kind: 'heartbeat' } | { kind: 'open' } | { kind: 'end' };

// One connection: its frames, heartbeats and end, until the stream ends, drops, goes silent or `signal` aborts.
async function* connect(
  transport: Transport,
  path: string,
  after: number,
  signal: AbortSignal | undefined,
  idleTimeoutMs: number,
): AsyncGenerator<StreamMessage> {
  const what = `GET ${path}`;
  const attempt = new AbortController();
  const abort = () => attempt.abort(signal?.reason);
  signal?.addEventListener('abort', abort, { once: true });
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let silent = false;
  const stop = () => {
    attempt.abort();
    // A fetch that ignores its signal once the headers are in (a custom one may) still ends here.
    reader?.cancel().catch(() => {});
  };
  try {
    const response = await transport.send('GET', path, {
      headers: { accept: 'text/event-stream', ...(after > 0 ? { 'last-event-id': String(after) } : {}) },
      signal: attempt.signal,
    });
    if (!response.body) throw invalidResponse(what, 'no body', response.status);
    reader = response.body.getReader();
    signal?.addEventListener('abort', stop, { once: true });
    const decoder = new TextDecoder();
    const parser = createSseParser();
    let seen = 0;
    for (;;) {
      idle = setTimeout(() => {
        silent = true;
        stop();
      }, idleTimeoutMs);
      const silence = () =>
        new AgencyError('network_failed', `${what}: nothing came for ${idleTimeoutMs} ms, not even a heartbeat`);
      const chunk = await reader.read().catch((error: unknown) => {
        throw silent ? silence() : networkError(error, what, signal);
      });
      clearTimeout(idle);
      if (chunk.done && silent) throw silence();
      if (chunk.done) return;
      for (const message of parser.feed(decoder.decode(chunk.value, { stream: true })))
        yield messageOf(message, seen++ === 0, what, response.status);
    }
  } finally {
    clearTimeout(idle);
    signal?.removeEventListener('abort', abort);
    signal?.removeEventListener('abort', stop);
    stop();
  }
}

function messageOf(message: SseMessage, first: boolean, what: string, status: number): StreamMessage {
  // The server opens with a comment, then sends one as a heartbeat while it has nothing else to say.
  if (message.kind === 'comment') return first ? { kind: 'open' } : { kind: 'heartbeat' };
  if (message.event === 'end') return { kind: 'end' };
  let json: unknown;
  try {
    json = JSON.parse(message.data);
  } catch {
    throw invalidResponse(what, `event ${message.id ?? '?'} is not JSON`, status);
  }
  const parsed = eventFrameSchema.safeParse(json);
  if (!parsed.success)
    throw invalidResponse(what, `event ${message.id ?? '?'}: ${parsed.error.issues[0]?.message}`, status);
  return { kind: 'frame', frame: parsed.data };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(networkError(signal.reason, 'waiting to reconnect', signal));
      return;
    }
    const done = () => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(networkError(signal?.reason, 'waiting to reconnect', signal));
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
