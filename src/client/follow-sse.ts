import { errorFromNoAnswer, invalidAnswer } from '../api/answer-errors.ts';
import { backoffDelay } from '../core/backoff.ts';
import { AgencyError } from '../core/errors.ts';
import { createSseParser, type SseMessage } from './sse-parser.ts';
import { askedServer, type Transport } from './transport.ts';

/** How a followed stream reconnects after a dropped connection. */
export type ReconnectOptions = {
  /** The first wait before reconnecting; it doubles with each failed attempt in a row. @default 250 */
  initialDelayMs?: number;
  /** The longest wait between attempts. @default 5000 */
  maxDelayMs?: number;
  /** Failed attempts in a row (nothing new and no heartbeat in between) before the iterator throws. @default 20 */
  maxAttempts?: number;
  /** A connection that sends nothing, not even a heartbeat, for this long is taken for dropped. @default 45000 */
  idleTimeoutMs?: number;
};

/** One event of the stream, for {@link FollowSseOptions.parse}. */
export type SseEvent = Extract<SseMessage, { kind: 'event' }>;

/** What {@link followSse} does with a stream's events, and when it connects again. */
export type FollowSseOptions<T> = {
  signal?: AbortSignal | undefined;
  reconnect?: ReconnectOptions | undefined;
  /** An event as an item, or `END` for the server's last event; throws `response_invalid` for a malformed one. */
  parse(event: SseEvent, what: string, status: number): T | typeof END;
  /** Headers of each connection, e.g. `Last-Event-ID`. */
  headers?(): Record<string, string>;
  /**
   * Whether an item is new: false skips it (a repeat after a reconnect); true yields it and resets the count of
   * failed attempts. It may note the item, e.g. as where the next connection resumes. @default every item is new
   */
  keep?(item: T): boolean;
  /** Why a stream that closed without `END` is taken for dropped. */
  closed: string;
  /** Called before each wait to reconnect. */
  onReconnect?(info: { attempt: number; delayMs: number; error: AgencyError }): void;
};

/** What `parse` returns for the event that ends a stream for good. */
export const END = Symbol('end');

const RETRY_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * The items of a Server-Sent Events stream across dropped connections: a drop (a network error, a stream that
 * closes without its end, or silence past `idleTimeoutMs`) connects again after a capped, jittered, doubling wait.
 * A refusal (401, 404, …) or a malformed answer is thrown at once; so is the last error after `maxAttempts` drops in
 * a row. It ends at the event `parse` calls `END`.
 */
export async function* followSse<T>(
  transport: Transport,
  path: string,
  options: FollowSseOptions<T>,
): AsyncGenerator<T, void, undefined> {
  const { signal, onReconnect, keep = () => true } = options;
  const { initialDelayMs = 250, maxDelayMs = 5000, maxAttempts = 20, idleTimeoutMs = 45_000 } = options.reconnect ?? {};
  const what = `GET ${path}`;
  let failures = 0;
  for (;;) {
    if (signal?.aborted) throw errorFromNoAnswer(signal.reason, askedServer(what), { signal });
    let lost: AgencyError;
    try {
      for await (const message of connect(transport, path, options, idleTimeoutMs)) {
        if (message.kind === 'heartbeat') failures = 0;
        if (message.kind === 'end') return;
        if (message.kind !== 'item' || !keep(message.item)) continue;
        failures = 0;
        yield message.item;
      }
      if (signal?.aborted) throw errorFromNoAnswer(signal.reason, askedServer(what), { signal });
      lost = new AgencyError('network_failed', `${what}: ${options.closed}`);
    } catch (error) {
      if (signal?.aborted) throw errorFromNoAnswer(error, askedServer(what), { signal });
      if (!AgencyError.isInstance(error) || !isDrop(error)) throw error;
      lost = error;
    }
    failures++;
    if (failures > maxAttempts) throw lost;
    const delayMs = backoffDelay(failures, { initialMs: initialDelayMs, maxMs: maxDelayMs });
    onReconnect?.({ attempt: failures, delayMs, error: lost });
    await sleep(delayMs, signal);
  }
}

// A lost connection is worth another attempt; a refusal (401, 404, …) or a malformed answer is not.
function isDrop(error: AgencyError): boolean {
  if (error.code === 'network_failed') return true;
  const status = error.details?.status;
  return error.code !== 'response_invalid' && typeof status === 'number' && RETRY_STATUSES.has(status);
}

type StreamMessage<T> = { kind: 'item'; item: T } | { kind: 'heartbeat' } | { kind: 'open' } | { kind: 'end' };

// One connection: its items, heartbeats and end, until the stream ends, drops, goes silent or `signal` aborts.
async function* connect<T>(
  transport: Transport,
  path: string,
  { signal, parse, headers }: FollowSseOptions<T>,
  idleTimeoutMs: number,
): AsyncGenerator<StreamMessage<T>> {
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
      headers: { accept: 'text/event-stream', ...headers?.() },
      signal: attempt.signal,
    });
    if (!response.body) throw invalidAnswer(askedServer(what), response.status, 'no body');
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
        throw silent ? silence() : errorFromNoAnswer(error, askedServer(what), { signal });
      });
      clearTimeout(idle);
      if (chunk.done && silent) throw silence();
      if (chunk.done) return;
      for (const message of parser.feed(decoder.decode(chunk.value, { stream: true }))) {
        // The server opens with a comment, then sends one as a heartbeat while it has nothing else to say.
        if (message.kind === 'comment') yield seen++ === 0 ? { kind: 'open' } : { kind: 'heartbeat' };
        else {
          seen++;
          const item = parse(message, what, response.status);
          yield item === END ? { kind: 'end' } : { kind: 'item', item };
        }
      }
    }
  } finally {
    clearTimeout(idle);
    signal?.removeEventListener('abort', abort);
    signal?.removeEventListener('abort', stop);
    stop();
  }
}

/** An event's data as JSON, or `response_invalid` naming the event. */
export function eventJson(event: SseEvent, what: string, status: number): unknown {
  try {
    return JSON.parse(event.data);
  } catch {
    throw invalidAnswer(askedServer(what), status, `event ${event.id ?? '?'} is not JSON`);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(errorFromNoAnswer(signal.reason, askedServer('waiting to reconnect'), { signal }));
      return;
    }
    const done = () => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const aborted = () => {
      clearTimeout(timer);
      reject(errorFromNoAnswer(signal?.reason, askedServer('waiting to reconnect'), { signal }));
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
