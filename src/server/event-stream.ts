import { AgencyError } from '../core/errors.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import { journalLineOf } from '../task/journal/follow-journal.ts';

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

// A frame is encoded once per format however many streams send it: the journal hub hands every subscriber the same
// frame object.
const encoded = new WeakMap<EventFrame, { sse?: Uint8Array; ndjson?: Uint8Array }>();

/** One frame as the format writes it. An SSE event's id is the frame's seq, so `Last-Event-ID` resumes after it. */
export function encodeFrame(frame: EventFrame, format: StreamFormat): Uint8Array {
  let cached = encoded.get(frame);
  if (!cached) encoded.set(frame, (cached = {}));
  const hit = cached[format];
  if (hit) return hit;
  // The line as the journal holds it, when the frame was read from one; serialized again otherwise.
  const line = journalLineOf(frame) ?? encoder.encode(JSON.stringify(frame));
  const head = format === 'sse' ? encoder.encode(`id: ${frame.seq}\ndata: `) : EMPTY;
  const tail = format === 'sse' ? SSE_END : NEWLINE;
  const bytes = new Uint8Array(head.byteLength + line.byteLength + tail.byteLength);
  bytes.set(head, 0);
  bytes.set(line, head.byteLength);
  bytes.set(tail, head.byteLength + line.byteLength);
  cached[format] = bytes;
  return bytes;
}

const EMPTY = new Uint8Array(0);
const NEWLINE = encoder.encode('\n');
const SSE_END = encoder.encode('\n\n');
/** Frames sent in one chunk, at most, when they are ready together. */
const BATCH_FRAMES = 512;
const BATCH_BYTES = 256 * 1024;
const NOT_YET = Symbol('not yet');

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
  // A `next()` that did not resolve in time for the last chunk; the next pull waits for it first.
  let pending: Promise<IteratorResult<EventFrame>> | undefined;
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
          // The first frame is waited for; the ones ready in the same turn of the event loop join it in one chunk.
          const chunks: Uint8Array[] = [];
          let bytes = 0;
          let next = await (pending ?? iterator.next());
          pending = undefined;
          for (;;) {
            if (next.done) {
              stopHeartbeat();
              if (chunks.length > 0) stream.enqueue(concat(chunks, bytes));
              if (format === 'sse') stream.enqueue(encoder.encode('event: end\ndata: {}\n\n'));
              stream.close();
              return;
            }
            const chunk = encodeFrame(next.value, format);
            chunks.push(chunk);
            bytes += chunk.byteLength;
            if (chunks.length >= BATCH_FRAMES || bytes >= BATCH_BYTES) break;
            const following = iterator.next();
            const ready = await Promise.race([
              following,
              new Promise<typeof NOT_YET>((resolve) => setImmediate(resolve, NOT_YET)),
            ]);
            if (ready === NOT_YET) {
              pending = following;
              break;
            }
            next = ready;
          }
          stream.enqueue(concat(chunks, bytes));
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

/**
 * A route's answer that streams frames: SSE when the request accepts `text/event-stream`, NDJSON otherwise, from
 * the seq after `Last-Event-ID` or `?after=`. `open` gets that seq and a signal aborted when the client goes away.
 * @throws AgencyError `invalid_argument` naming `after` when the resume point is not a seq
 */
export async function framesResponse(
  request: Request,
  after: string | undefined,
  heartbeatMs: number,
  open: (after: number | undefined, signal: AbortSignal) => Promise<AsyncIterable<EventFrame>>,
): Promise<Response> {
  const from = resumeAfter(request.headers.get('last-event-id') ?? undefined, after);
  if (Number.isNaN(from))
    throw new AgencyError('invalid_argument', 'after: must be a seq (a non-negative integer)', {
      details: { field: 'after' },
    });
  const sse = (request.headers.get('accept') ?? '').includes('text/event-stream');
  const controller = new AbortController();
  request.signal.addEventListener('abort', () => controller.abort(), { once: true });
  const frames = await open(from, controller.signal);
  return new Response(eventStream(frames, { format: sse ? 'sse' : 'ndjson', heartbeatMs, controller }), {
    headers: {
      'content-type': sse ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    },
  });
}

function concat(chunks: Uint8Array[], bytes: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
