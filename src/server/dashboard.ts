import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import type { Hono } from 'hono';
import type { ServerEnv } from './app.ts';
import { matchToken, type NamedToken } from '../credentials/bearer-token.ts';
import { type SessionOptions, startSession } from './auth-routes.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

type Asset = { body: Uint8Array; type: string };

/**
 * Loads the built dashboard (`web/dist`) into memory, keyed by URL path. Only these files are ever served: no request
 * path is resolved against the file system, so none can leave the folder.
 */
export function loadDashboard(dir: string | undefined): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!dir) return assets;
  const walk = (folder: string, depth: number) => {
    if (depth > 8) return;
    for (const name of readdirSync(folder)) {
      const file = join(folder, name);
      const stats = statSync(file, { throwIfNoEntry: false });
      if (!stats) continue;
      if (stats.isDirectory()) walk(file, depth + 1);
      else if (stats.isFile() && TYPES[extname(name)])
        assets.set(`/${relative(dir, file).split(sep).join('/')}`, {
          body: readFileSync(file),
          type: TYPES[extname(name)]!,
        });
    }
  };
  try {
    walk(dir, 0);
  } catch {
    return new Map();
  }
  return assets;
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>agency</title>
<p>The dashboard is not built. Run <code>npm run build</code> (or <code>npm ci</code>, which builds it) and restart
<code>agency serve</code>. The API works without it: see <a href="/openapi.json">/openapi.json</a>.</p>`;

/**
 * Serves the dashboard: its files, and `index.html` for any other page path (the app routes in the browser). A
 * `?token=` on a page logs the browser in once: the session cookie is set and the address is replaced by one without
 * the token, so it does not stay in history or logs.
 */
export function dashboardRoutes(
  app: Hono<ServerEnv>,
  options: SessionOptions & { dir: string | undefined; tokens: readonly NamedToken[] },
): void {
  const assets = loadDashboard(options.dir);
  app.get('*', async (c) => {
    const url = new URL(c.req.url);
    const token = url.searchParams.get('token');
    if (token !== null) {
      const name = matchToken(token, options.tokens);
      if (name) startSession(c, name, options);
      url.searchParams.delete('token');
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    if (url.pathname.startsWith('/agent/') || url.pathname.startsWith('/auth/'))
      return c.json(
        { error: 'not_found', message: `No route GET ${url.pathname}`, details: { retryable: false } },
        404,
      );
    const asset = assets.get(url.pathname) ?? assets.get('/index.html');
    if (!asset) return c.html(NOT_BUILT);
    const immutable = url.pathname.startsWith('/assets/');
    return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, {
      'content-type': asset.type,
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
  });
}
