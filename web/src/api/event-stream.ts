import type { EventFrame } from './types.ts';

/**
 * Where a task's stream is: opening, receiving, reconnecting after a drop (the browser's own retry with
 * `Last-Event-ID`, or a reopen with `?after=`), or ended because the run finished.
 */
export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'ended';

/** The part of `EventSource` the stream uses, so tests can pass a fake. */
export type EventSourceLike = {
  readonly readyState: number;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent<string>) => void) | null;
  onerror: ((event: Event) => void) | null;
  addEventListener(type: 'end', listener: () => void): void;
  close(): void;
};

/** Options of {@link openEventStream}. */
export type EventStreamOptions = {
  /** The stream's URL resuming after a seq (0: from the start). */
  url: (after: number) => string;
  /** The highest seq the caller holds: where a reopened stream resumes. */
  lastSeq: () => number;
  onFrame: (frame: EventFrame) => void;
  onState: (state: StreamState) => void;
  /** Called when the server closed the stream without ending it (a refusal, a restart), before the reopen. */
  onDropped?: () => void;
  /** @default the browser's EventSource */
  createSource?: (url: string) => EventSourceLike;
  /** The wait before reopen number `attempt` (1, 2, …). @default 1 s doubling to 15 s */
  retryDelayMs?: (attempt: number) => number;
};

const CONNECTING = 0;

/**
 * Follows a task's `agent.events.v1` frames over SSE until the run ends or `close()` is called. It never gives up on
 * a dropped connection: while the browser retries by itself the state is `reconnecting`; when the browser stops
 * (the server refused or restarted), the stream reopens itself from the last seq the caller holds.
 */
export function openEventStream({
  url,
  lastSeq,
  onFrame,
  onState,
  onDropped,
  createSource = (address) => new EventSource(address),
  retryDelayMs = (attempt) => Math.min(15_000, 1_000 * 2 ** (attempt - 1)),
}: EventStreamOptions): { close(): void } {
  let source: EventSourceLike | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempts = 0;
  let closed = false;

  const open = (): void => {
    const current = createSource(url(lastSeq()));
    source = current;
    current.onopen = () => {
      attempts = 0;
      onState('live');
    };
    current.onmessage = (message) => {
      const frame = parseFrame(message.data);
      if (frame) onFrame(frame);
    };
    current.addEventListener('end', () => {
      stop();
      onState('ended');
    });
    current.onerror = () => {
      if (closed || source !== current) return;
      onState('reconnecting');
      if (current.readyState === CONNECTING) return;
      current.close();
      onDropped?.();
      attempts += 1;
      timer = setTimeout(open, retryDelayMs(attempts));
    };
  };

  const stop = (): void => {
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    source?.close();
  };

  onState('connecting');
  open();
  return { close: stop };
}

function parseFrame(data: string): EventFrame | undefined {
  try {
    const frame = JSON.parse(data) as EventFrame;
    return typeof frame.seq === 'number' && typeof frame.type === 'string' ? frame : undefined;
  } catch {
    return undefined;
  }
}
