// A local HTTP server that plays recorded provider responses and breaks them on purpose: it cuts the connection
// after the headers or part-way through the body, closes the body early, stalls, or answers with a status and
// headers of the test's choosing. The real @ai-sdk providers talk to it over real sockets.
import { createServer, type ServerResponse } from 'node:http';
import type { RecordedResponse } from './fixture-fetch.ts';

/** What the server does with one request. `bytes` counts from the start of the recorded body. */
export type Fault =
  | { kind: 'ok'; response: RecordedResponse }
  /** Sends the headers (with the full `content-length` for a JSON body) and `bytes` of the body, then destroys the socket. */
  | { kind: 'cut'; response: RecordedResponse; bytes: number }
  /** Sends `bytes` of the body and ends the response cleanly, chunked, as a proxy that gave up would. */
  | { kind: 'close'; response: RecordedResponse; bytes: number }
  /** Sends the headers and `bytes` of the body, then nothing more. */
  | { kind: 'stall'; response: RecordedResponse; bytes: number }
  | { kind: 'status'; status: number; headers: Record<string, string>; body: string };

/** A running fault server: `url` is its base (`http://127.0.0.1:<port>/v1`); `requests` counts what it served. */
export type FaultServer = { url: string; requests: () => number; close: () => Promise<void> };

/** Serves `script` in order, one fault per request; a request beyond it gets a 500 naming the problem. */
export async function startFaultServer(script: readonly Fault[]): Promise<FaultServer> {
  let served = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const fault = script[served++];
      if (!fault) {
        response.writeHead(500, { 'content-type': 'text/plain' }).end(`fault server: unexpected request #${served}`);
        return;
      }
      serve(fault, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function serve(fault: Fault, response: ServerResponse): void {
  if (fault.kind === 'status') {
    response.writeHead(fault.status, fault.headers).end(fault.body);
    return;
  }
  const { body, status, contentType } = fault.response;
  const bytes = Buffer.from(body);
  if (fault.kind === 'ok') {
    response.writeHead(status, { 'content-type': contentType, 'content-length': bytes.length }).end(bytes);
    return;
  }
  const sized = fault.kind === 'cut' && contentType === 'application/json';
  response.writeHead(status, { 'content-type': contentType, ...(sized ? { 'content-length': bytes.length } : {}) });
  response.flushHeaders();
  const part = bytes.subarray(0, fault.bytes);
  if (fault.kind === 'close') {
    response.end(part);
    return;
  }
  const after = fault.kind === 'cut' ? () => response.socket?.destroy() : () => {};
  if (part.length === 0) setTimeout(after, 10);
  else response.write(part, () => setTimeout(after, 10));
}

/** The byte length of an SSE body up to and including its first event. */
export function firstEventBytes(body: string): number {
  return Buffer.byteLength(body.slice(0, body.indexOf('\n\n') + 2));
}

/** The byte length of an SSE body up to and including the first event whose text matches `marker`. */
export function eventBytesThrough(body: string, marker: RegExp): number {
  let end = 0;
  for (;;) {
    const next = body.indexOf('\n\n', end);
    if (next < 0) throw new Error(`No event matches ${marker}`);
    const event = body.slice(end, next);
    end = next + 2;
    if (marker.test(event)) return Buffer.byteLength(body.slice(0, end));
  }
}
