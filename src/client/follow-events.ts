import { invalidAnswer } from '../api/answer-errors.ts';
import { eventFrameSchema } from '../api/schemas.ts';
import type { AgencyError } from '../core/errors.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import { END, eventJson, followSse, type ReconnectOptions, type SseEvent } from './follow-sse.ts';
import { askedServer, type Transport } from './transport.ts';

export type { ReconnectOptions } from './follow-sse.ts';

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

/**
 * The frames of a task's event stream, each once and in order, across dropped connections: a drop (a network error,
 * a stream that ends without the server's `end`, or silence past `idleTimeoutMs`) reconnects with `Last-Event-ID`
 * set to the last seq yielded, after a capped, jittered, doubling wait. The iteration ends when the server ends the
 * stream after the run's finish.
 */
export function followEvents(
  transport: Transport,
  path: string,
  options: EventsOptions = {},
): AsyncGenerator<EventFrame, void, undefined> {
  const { onReconnect } = options;
  let last = options.after ?? 0;
  return followSse<EventFrame>(transport, path, {
    signal: options.signal,
    reconnect: options.reconnect,
    parse: frameOf,
    headers: () => (last > 0 ? { 'last-event-id': String(last) } : {}),
    keep: (frame) => {
      if (frame.seq <= last) return false;
      last = frame.seq;
      return true;
    },
    closed: "the stream ended before the run's end",
    ...(onReconnect ? { onReconnect: (info) => onReconnect({ ...info, after: last }) } : {}),
  });
}

function frameOf(event: SseEvent, what: string, status: number): EventFrame | typeof END {
  if (event.event === 'end') return END;
  const parsed = eventFrameSchema.safeParse(eventJson(event, what, status));
  if (!parsed.success)
    throw invalidAnswer(askedServer(what), status, `event ${event.id ?? '?'}: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}
