// The events stream, as the real server sends it (id = seq, `event: end` when the run is over, heartbeats), except
// that it misbehaves on purpose: it drops connections now and then, sometimes refuses the reconnect so the page must
// reopen by itself, and replays the last frame on a Last-Event-ID resume so the page must drop the duplicate.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import type { FakeTask } from './fake-store.ts';

export type Chaos = { dropEveryMs: number; refuseOneIn: number };

/** How streams were opened, so a driver can check that both ways of resuming were taken. */
export const streamStats = { opened: 0, resumedWithLastEventId: 0, reopenedWithAfter: 0, refused: 0, dropped: 0 };

/** Streams a task's frames after `after` (from `?after=` or Last-Event-ID), then live ones. */
export function streamEvents(
  task: FakeTask,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  chaos: Chaos,
): void {
  const lastEventId = request.headers['last-event-id'];
  const resumed = typeof lastEventId === 'string' && lastEventId !== '';
  streamStats.opened += 1;
  if (resumed) streamStats.resumedWithLastEventId += 1;
  if (url.searchParams.has('after')) streamStats.reopenedWithAfter += 1;
  if (resumed && chaos.refuseOneIn > 0 && streamStats.resumedWithLastEventId % chaos.refuseOneIn === 0) {
    streamStats.refused += 1;
    // A non-stream answer: the browser's EventSource gives up, and the page has to reopen with ?after=.
    response.writeHead(503, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        error: 'service_unavailable',
        message: 'The server is restarting.',
        details: { retryable: true },
      }),
    );
    return;
  }
  const requested = Number(url.searchParams.get('after') ?? (resumed ? lastEventId : 0)) || 0;
  const after = resumed ? Math.max(0, requested - 1) : requested;
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  response.write('retry: 1000\n\n');
  const send = (frame: EventFrame): void => void response.write(`id: ${frame.seq}\ndata: ${JSON.stringify(frame)}\n\n`);
  for (const frame of task.frames) if (frame.seq > after) send(frame);
  const finished = task.detail.finish_reason !== null && task.detail.status !== 'running';
  if (finished) {
    response.end('event: end\ndata: {}\n\n');
    return;
  }
  const listener = (frame: EventFrame | 'end'): void => {
    if (frame === 'end') {
      response.end('event: end\ndata: {}\n\n');
      cleanup();
    } else send(frame);
  };
  task.listeners.add(listener);
  const heartbeat = setInterval(() => response.write(': heartbeat\n\n'), 15_000);
  const drop =
    chaos.dropEveryMs > 0
      ? setTimeout(
          () => {
            streamStats.dropped += 1;
            response.destroy();
          },
          chaos.dropEveryMs * (0.5 + Math.random()),
        )
      : undefined;
  const cleanup = (): void => {
    task.listeners.delete(listener);
    clearInterval(heartbeat);
    if (drop) clearTimeout(drop);
  };
  response.on('close', cleanup);
}
