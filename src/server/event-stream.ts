import type { EventFrame } from '../task/contracts/events.ts';

/** How a task's events are sent: Server-Sent Events for browsers, NDJSON for everything else. */
export type StreamFormat = 'sse' | 'ndjson';

/** Options for {@link eventStream}. */
export type EventStreamOptions = {
  format: StreamFormat;
  /** A comment (SSE) or an empty line (NDJSON) this often, so proxies and clients see the stream is alive. */
  heartbeatMs: number;
  /** Aborted when the client goes away; the frames' source is stopped with it. */
  controller: AbortController;
};

const encoder = new TextEncoder();

/** One frame as the format writes it. An SSE event's id is the frame's seq, so `Last-Event-ID` resumes after it. */
export function encodeFrame(frame: EventFrame, format: StreamFormat): Uint8Array {
  const json = JSON.stringify(frame);
  return encoder.encode(format === 'sse' ? `id: ${frame.seq}\ndata: ${json}\n\n` : `${json}\n`);
}

/**
 * A byte stream of `frames`, pulled as the client reads (a slow client slows only its own stream), with heartbeats,
 * and for SSE a last `event: end` when the run has finished. The stream ends when the frames end, and the source is
 * stopped when the client goes away.
 */
export function eventStream(
  frames: AsyncIterable<EventFrame>,
  options: EventStreamOptions,
): ReadableStream<Uint8Array> {
  const { format, heartbeatMs, controller } = options;
  const iterator = frames[Symbol.asyncIterator]();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const stopHeartbeat = () => {
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = undefined;
  };
  return new ReadableStream<Uint8Array>(
    {
      start(stream) {
        // A first line at once: the client knows the stream is open, and proxies flush their headers.
        stream.enqueue(encoder.encode(format === 'sse' ? 'retry: 1000\n: open\n\n' : '\n'));
        heartbeat = setInterval(() => {
          try {
            stream.enqueue(encoder.encode(format === 'sse' ? ': heartbeat\n\n' : '\n'));
          } catch {
            stopHeartbeat();
          }
        }, heartbeatMs);
        heartbeat.unref?.();
      },
      async pull(stream) {
        try {
          const next = await iterator.next();
          if (next.done) {
            stopHeartbeat();
            if (format === 'sse') stream.enqueue(encoder.encode('event: end\ndata: {}\n\n'));
            stream.close();
            return;
          }
          stream.enqueue(encodeFrame(next.value, format));
        } catch (error) {
          stopHeartbeat();
          stream.error(error);
        }
      },
      async cancel() {
        stopHeartbeat();
        controller.abort();
        await iterator.return?.();
      },
    },
    { highWaterMark: 16 },
  );
}

/**
 * The seq to resume after: the `Last-Event-ID` header (what `EventSource` sends when it reconnects) wins over
 * `?after=`; undefined when neither is a non-negative integer.
 */
export function resumeAfter(lastEventId: string | undefined, after: string | undefined): number | undefined {
  for (const value of [lastEventId, after]) {
    if (value === undefined || value === '') continue;
    return /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  }
  return undefined;
}
