import { type ApiContext, errors } from '../api-route-parts.ts';
import type { Route } from '../../http/route.ts';
import type { Fleet } from './fleet.ts';

const encoder = new TextEncoder();

/**
 * `GET /agent/fleet/events`: the fleet as Server-Sent Events. Each `fleet` event is the whole of `GET /agent/fleet`,
 * sent at once on connecting and again whenever a component appears or changes health, state or task; a comment
 * every heartbeat. A reconnecting browser simply gets the fleet anew, so no event ids are needed.
 */
export const fleetEventsRoute = ({ fleet, heartbeatMs }: ApiContext): Route => ({
  method: 'get',
  path: '/agent/fleet/events',
  summary: 'The fleet, live (SSE): a `fleet` event with every component at once, then one on every change',
  tag: 'fleet',
  responses: {
    200: {
      description: 'a stream of `fleet` events, each the body of GET /agent/fleet',
      contentType: 'text/event-stream',
    },
    ...errors(401),
  },
  handler: async (c) => {
    const stream = fleetStream(fleet, heartbeatMs, c.req.raw.signal);
    return new Response(stream, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      },
    });
  },
});

// The stream is pulled: a change marks the fleet as changed, and the next snapshot is made when the reader is ready
// for it, so a slow reader gets the latest fleet, never a backlog of old ones.
function fleetStream(fleet: Fleet, heartbeatMs: number, signal: AbortSignal): ReadableStream<Uint8Array> {
  let changed = true;
  let closed = false;
  let wake: (() => void) | undefined;
  const unsubscribe = fleet.subscribe(() => {
    changed = true;
    wake?.();
  });
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
    wake?.();
  };
  signal.addEventListener('abort', stop, { once: true });
  return new ReadableStream<Uint8Array>(
    {
      start(stream) {
        stream.enqueue(encoder.encode('retry: 1000\n: open\n\n'));
        heartbeat = setInterval(() => {
          try {
            stream.enqueue(encoder.encode(': heartbeat\n\n'));
          } catch {
            stop();
          }
        }, heartbeatMs);
        heartbeat.unref?.();
      },
      async pull(stream) {
        while (!changed && !closed) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        if (closed) return;
        changed = false;
        stream.enqueue(encoder.encode(`event: fleet\ndata: ${JSON.stringify(fleet.view())}\n\n`));
      },
      cancel: stop,
    },
    { highWaterMark: 1 },
  );
}
