import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { AgencyError, errorMessage } from '../core/errors.ts';
import type { NamedToken } from '../credentials/bearer-token.ts';
import { createSessionStore, type SessionStore } from './http-sessions.ts';
import { checkRequest, hostnameOf, originOf, type RequestGuard } from './request-guard.ts';

/** Options for serving MCP over Streamable HTTP. */
export type McpHttpOptions = {
  /** The interface to bind. Anything but loopback needs `allowedHosts`. @default '127.0.0.1' */
  host?: string;
  /** `0` picks a free port; read it from the listener. @default 0 */
  port?: number;
  /** @default '/mcp' */
  path?: string;
  /**
   * Host names the `Host` header may carry, port excluded.
   * @default ['localhost', '127.0.0.1', '[::1]'] plus `host`
   */
  allowedHosts?: readonly string[];
  /**
   * Origins browsers may call from. Requests without an `Origin` header (non-browser clients) are allowed.
   * @default the server's own loopback origins, e.g. 'http://127.0.0.1:3333'
   */
  allowedOrigins?: readonly string[];
  /**
   * When set, every request needs `Authorization: Bearer <token>` with one of these tokens, compared in constant time.
   * The token's `name` is the principal its requests act as (governed tasks sign decisions with it), and a session
   * belongs to the principal that started it.
   * @example [{ name: 'ana', token: process.env.ANA_TOKEN }]
   */
  tokens?: readonly NamedToken[];
  /** @default 4194304 (4 MiB) */
  maxBodyBytes?: number;
  /** Live sessions; beyond it the longest-idle one is ended, or the request refused with 503. @default 100 */
  maxSessions?: number;
  /** A session with no request for this long is ended. @default 1800000 (30 min) */
  sessionIdleMs?: number;
};

/** A running Streamable HTTP endpoint. */
export type McpHttpListener = {
  /** The endpoint URL, e.g. `http://127.0.0.1:3333/mcp`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
};

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Listens for MCP over Streamable HTTP. Every request is checked for `Host`, `Origin` and (optionally) a bearer
 * token before its body is read; refused requests get 403 or 401 and never reach a session.
 * @throws AgencyError `invalid_argument` when binding beyond loopback without `allowedHosts`.
 */
export async function listenMcpHttp(newSession: () => Server, options: McpHttpOptions = {}): Promise<McpHttpListener> {
  const { host = '127.0.0.1', port = 0, path = '/mcp', tokens, maxBodyBytes = 4 * 1024 * 1024 } = options;
  const { maxSessions = 100, sessionIdleMs = 30 * 60_000 } = options;
  const bindName = hostnameOf(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host) ?? host;
  if (options.allowedHosts === undefined && !LOOPBACK.includes(bindName) && !/^127\./.test(host)) {
    throw new AgencyError(
      'invalid_argument',
      `Serving MCP on "${host}" needs "allowedHosts": the host names clients use to reach it (DNS-rebinding protection)`,
      { details: { field: 'allowedHosts' } },
    );
  }
  checkTokens(tokens);
  const allowedHosts = new Set<string>();
  const allowedOrigins = new Set<string>();
  const guard: RequestGuard = { allowedHosts, allowedOrigins, ...(tokens ? { tokens } : {}) };
  const sessions = createSessionStore({ newSession, maxSessions, idleMs: sessionIdleMs });
  const handle = createHandler({ guard, path, maxBodyBytes, sessions });
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, `Internal error: ${errorMessage(error)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const bound = (http.address() as AddressInfo).port;
  for (const name of options.allowedHosts ?? [...LOOPBACK, bindName]) allowedHosts.add(hostnameOf(name) ?? name);
  const origins = options.allowedOrigins ?? [...LOOPBACK, bindName].map((name) => `http://${name}:${bound}`);
  for (const origin of origins) allowedOrigins.add(originOf(origin) ?? origin);
  return {
    url: `http://${bindName}:${bound}${path}`,
    port: bound,
    async close() {
      await sessions.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

function createHandler(options: { guard: RequestGuard; path: string; maxBodyBytes: number; sessions: SessionStore }) {
  const { guard, path, maxBodyBytes, sessions } = options;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { host, origin, authorization } = req.headers;
    const checked = checkRequest({ host, origin, authorization }, guard);
    if (!checked.ok) return reply(res, checked.status, checked.message);
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== path) return reply(res, 404, 'Not found');
    const body = req.method === 'POST' ? await readJson(req, maxBodyBytes) : { ok: true as const, value: undefined };
    if (!body.ok) return reply(res, body.status, body.message, body.code);
    const { principal } = checked;
    // The SDK hands `req.auth` to request handlers as `extra.authInfo`; the secret itself stays here.
    if (principal !== undefined)
      (req as IncomingMessage & { auth?: AuthInfo }).auth = {
        token: '',
        clientId: principal,
        scopes: [],
        extra: { principal },
      };
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const served = await sessions.serve(id, req, res, body.value, principal);
      if (served === 'served') return;
      if (served === 'forbidden') return reply(res, 403, 'Forbidden: this session belongs to another token');
      return reply(res, 404, 'Session not found: start a new one with an initialize request');
    }
    if (req.method !== 'POST' || !isInitializeRequest(body.value)) {
      return reply(res, 400, 'Bad request: send an initialize request first, then the Mcp-Session-Id it returns');
    }
    if (await sessions.initialize(req, res, body.value, principal)) return;
    res.setHeader('retry-after', '5');
    reply(res, 503, 'Too many MCP sessions; retry later');
  };
}

function checkTokens(tokens: readonly NamedToken[] | undefined): void {
  if (tokens === undefined) return;
  const bad = tokens.findIndex((entry) => !entry?.name?.trim() || typeof entry.token !== 'string' || !entry.token);
  if (tokens.length === 0 || bad >= 0)
    throw new AgencyError(
      'invalid_argument',
      tokens.length === 0
        ? '"tokens" is empty: give at least one { name, token }, or leave it out to serve without a token'
        : `"tokens.${bad}" needs a non-empty "name" and "token"`,
      { details: { field: tokens.length === 0 ? 'tokens' : `tokens.${bad}` } },
    );
}

type Body = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string; code: number };

async function readJson(req: IncomingMessage, limit: number): Promise<Body> {
  const tooLarge: Body = { ok: false, status: 413, message: `Request body over ${limit} bytes`, code: -32600 };
  if (Number(req.headers['content-length'] ?? 0) > limit) return tooLarge;
  // Whatever is left of an oversized body is not read: the connection is closed after the reply.
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return tooLarge;
    chunks.push(chunk);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, status: 400, message: 'Parse error: the body is not JSON', code: -32700 };
  }
}

function reply(res: ServerResponse, status: number, message: string, code = -32000): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
    ...(status === 413 ? { connection: 'close' } : {}),
  });
  res.end(body);
}
