// A local HTTP server that answers each request with the next of a list of provider responses and keeps every
// request body it received, so a test can assert what the real @ai-sdk provider sent over the wire.
import { createServer } from 'node:http';
import type { RecordedResponse } from './fixture-fetch.ts';

/** A response to serve: a fixed one, or one made from the request's parsed body. */
export type ServedResponse = RecordedResponse | ((body: unknown, index: number) => RecordedResponse);

/** A running server: `url` is its base (`http://127.0.0.1:<port>/v1`); `bodies` holds each request's JSON body. */
export type RecordingServer = {
  url: string;
  bodies: unknown[];
  paths: string[];
  close: () => Promise<void>;
};

/** Serves `responses` in order; a request beyond them gets a 500 naming the problem. */
export async function startRecordingServer(responses: readonly ServedResponse[]): Promise<RecordingServer> {
  const bodies: unknown[] = [];
  const paths: string[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const index = bodies.length;
      const body: unknown = text ? JSON.parse(text) : undefined;
      bodies.push(body);
      paths.push(request.url ?? '');
      const next = responses[index];
      if (!next) {
        response.writeHead(500, { 'content-type': 'text/plain' }).end(`recording server: unexpected request #${index}`);
        return;
      }
      const served = typeof next === 'function' ? next(body, index) : next;
      response.writeHead(served.status, { 'content-type': served.contentType }).end(served.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    bodies,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON response body. */
export function json(body: unknown, status = 200): RecordedResponse {
  return { status, body: JSON.stringify(body), contentType: 'application/json' };
}
