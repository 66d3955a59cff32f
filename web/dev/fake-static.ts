// Serves the built dashboard: files from web/dist, and index.html for any other path (client-side routes).
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
};

/** Answers a GET for a dashboard path from `root`. */
export async function serveStatic(root: string, pathname: string, response: ServerResponse): Promise<void> {
  const relative = normalize(decodeURIComponent(pathname)).replace(/^(\.\.[/\\])+/, '');
  const file = join(root, relative);
  const type = TYPES[extname(file)];
  if (file.startsWith(root) && type && relative !== '/') {
    const body = await readFile(file).catch(() => undefined);
    if (body) {
      response.writeHead(200, {
        'content-type': type,
        'cache-control': relative.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
      });
      response.end(body);
      return;
    }
  }
  const index = await readFile(join(root, 'index.html')).catch(() => undefined);
  if (!index) {
    response.writeHead(500, { 'content-type': 'text/plain' });
    response.end('web/dist/index.html is missing: run `npm run build` in web/ first.\n');
    return;
  }
  response.writeHead(200, { 'content-type': TYPES['.html']!, 'cache-control': 'no-cache' });
  response.end(index);
}
