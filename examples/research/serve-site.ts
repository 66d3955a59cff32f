// Serves examples/research/site/ on a free port of 127.0.0.1, so demos running at the same time do not collide.
// The task's links, its network allowlist and the cassette name RECORDED_SITE, the address the example was recorded
// with; scripts/demo.ts rewrites the task copy to the address actually served, and rehostModel (rehost-model.ts)
// translates between the two at the model boundary.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';

/** The port in examples/research/task/ and in the cassette. */
export const RECORDED_PORT = 48213;
/** The address in examples/research/task/ and in the cassette. Any free port of the same length stands in for it. */
export const RECORDED_SITE = `127.0.0.1:${RECORDED_PORT}`;

/** The running fixture site. */
export type Site = { server: Server; /** `127.0.0.1:<port>` */ address: string };

/**
 * Starts the fixture site on `port`, by default a free one the OS picks. Responses carry no Date header, so the
 * pages are byte-identical on every run.
 * @throws Error in one line when the port cannot be had.
 */
export async function startSite(port = 0): Promise<Site> {
  const root = join(import.meta.dirname, 'site');
  const server = createServer((request, response) => {
    response.sendDate = false;
    const path = normalize(new URL(request.url ?? '/', 'http://localhost').pathname).replace(/^(\.\.[/\\])+/, '');
    readFile(join(root, path)).then(
      (body) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': body.byteLength });
        response.end(body);
      },
      () => {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('not found\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(`The research example's site cannot listen on 127.0.0.1:${port} (${error.code ?? error.message}).`),
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { server, address: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}
