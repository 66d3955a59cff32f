// Serves examples/research/site/ on 127.0.0.1:48213, the address the research task's links point at.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join, normalize } from 'node:path';

/** The port the research example's fixture site listens on. */
export const SITE_PORT = 48213;

/** Starts the fixture site. Responses carry no Date header, so the pages are byte-identical on every run. */
export async function startSite(port = SITE_PORT): Promise<Server> {
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
        error.code === 'EADDRINUSE'
          ? new Error(`Port ${port} is in use: the research example's site needs it. Stop whatever listens there.`)
          : error,
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}
