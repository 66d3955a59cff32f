// A stateful local Zep: the few graph endpoints the Zep memory store calls, over real HTTP on a free port. Every
// request body is parsed by the SDK's own serialization schema (unknown keys fail) and every response is written by
// the SDK's schema from the API type, so a request or answer the real SDK would not produce or accept is caught:
// the fake answers 400 and records it in `violations`.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Zep } from '@getzep/zep-cloud';
import * as serialization from '@getzep/zep-cloud/serialization';

/** The most characters of `data` Zep takes in one graph.add, as the fake enforces it. */
export const FAKE_EPISODE_DATA_LIMIT = 10_000;

/** A planned failure for the next request to an endpoint: a status with a body, or a body that is not Zep's. */
export type ZepFault = { status: number; body?: string } | { malformed: string };

/** A running fake: `baseUrl` is its API base (`http://127.0.0.1:<port>/api/v2`). */
export type ZepFake = {
  baseUrl: string;
  apiKey: string;
  /** Requests or responses that broke the SDK's schemas, and routes nobody serves. Empty in a passing test. */
  violations: string[];
  /** Every request as `METHOD /path`, in order. */
  requests: string[];
  /** Fails the next request whose `METHOD /path` matches `route`. */
  failNext(route: RegExp, fault: ZepFault): void;
  /** The episodes of a graph, as stored. */
  episodes(graphId: string): Zep.Episode[];
  close(): Promise<void>;
};

type Reply = { status: number; schema?: SchemaLike; value?: unknown };
type SchemaLike = {
  parse(raw: unknown, opts: object): { ok: true; value: unknown } | { ok: false; errors: unknown[] };
  json(parsed: unknown, opts: object): { ok: true; value: unknown } | { ok: false; errors: unknown[] };
};
const STRICT = { unrecognizedObjectKeys: 'fail' } as const;

/** Starts a fake Zep that accepts `apiKey` (as `Authorization: Api-Key <key>`). */
export async function startZepFake(apiKey = 'zep_test_key_0123456789abcdef'): Promise<ZepFake> {
  const graphs = new Map<string, Zep.Graph>();
  const episodes = new Map<string, Zep.Episode[]>();
  const faults: { route: RegExp; fault: ZepFault }[] = [];
  const violations: string[] = [];
  const requests: string[] = [];
  let clock = 0;
  const createdAt = () => {
    clock = Math.max(clock + 1, Date.now());
    return new Date(clock).toISOString();
  };

  const parseBody = (schema: SchemaLike, raw: unknown, route: string): unknown => {
    const parsed = schema.parse(raw, STRICT);
    if (parsed.ok) return parsed.value;
    violations.push(`${route}: request breaks the SDK schema: ${JSON.stringify(parsed.errors)}`);
    return undefined;
  };

  const route = (method: string, path: string, query: URLSearchParams, body: unknown): Reply => {
    const where = `${method} ${path}`;
    let match: RegExpExecArray | null;
    if (method === 'POST' && path === '/graph/create') {
      const request = parseBody(serialization.CreateGraphRequest, body, where) as Zep.CreateGraphRequest | undefined;
      if (request === undefined) return { status: 400 };
      if (graphs.has(request.graphId)) return { status: 400 };
      const graph: Zep.Graph = {
        graphId: request.graphId,
        ...(request.name === undefined ? {} : { name: request.name }),
        uuid: randomUUID(),
        createdAt: createdAt(),
      };
      graphs.set(request.graphId, graph);
      episodes.set(request.graphId, []);
      return { status: 201, schema: serialization.Graph, value: graph };
    }
    if (method === 'GET' && path === '/graph/list-all') {
      const page = Number(query.get('pageNumber') ?? '1');
      const size = Number(query.get('pageSize') ?? '100');
      const all = [...graphs.values()];
      const value: Zep.GraphListResponse = {
        graphs: all.slice((page - 1) * size, page * size),
        totalCount: all.length,
        pageNumber: page,
        pageSize: size,
      };
      return { status: 200, schema: serialization.GraphListResponse, value };
    }
    if (method === 'POST' && path === '/graph') {
      const request = parseBody(serialization.AddDataRequest, body, where) as Zep.AddDataRequest | undefined;
      if (request === undefined || request.graphId === undefined) return { status: 400 };
      if (request.data.length > FAKE_EPISODE_DATA_LIMIT) return { status: 400 };
      const held = episodes.get(request.graphId);
      if (held === undefined) return { status: 404 };
      const episode: Zep.Episode = {
        uuid: randomUUID(),
        content: request.data,
        createdAt: createdAt(),
        source: request.type,
        processed: false,
        ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
        ...(request.sourceDescription === undefined ? {} : { sourceDescription: request.sourceDescription }),
      };
      held.push(episode);
      return { status: 200, schema: serialization.Episode, value: episode };
    }
    if (method === 'GET' && (match = /^\/graph\/episodes\/graph\/([^/]+)$/.exec(path))) {
      const held = episodes.get(decodeURIComponent(match[1] as string));
      if (held === undefined) return { status: 404 };
      const lastn = Number(query.get('lastn') ?? held.length);
      const value: Zep.EpisodeResponse = { episodes: held.slice(Math.max(0, held.length - lastn)) };
      return { status: 200, schema: serialization.EpisodeResponse, value };
    }
    if (method === 'DELETE' && (match = /^\/graph\/episodes\/([^/]+)$/.exec(path))) {
      const uuid = decodeURIComponent(match[1] as string);
      for (const held of episodes.values()) {
        const at = held.findIndex((episode) => episode.uuid === uuid);
        if (at < 0) continue;
        held.splice(at, 1);
        return {
          status: 200,
          schema: serialization.SuccessResponse,
          value: { message: 'Episode deleted' },
        };
      }
      return { status: 404 };
    }
    if (method === 'GET' && (match = /^\/graph\/([^/]+)$/.exec(path))) {
      const graph = graphs.get(decodeURIComponent(match[1] as string));
      return graph === undefined ? { status: 404 } : { status: 200, schema: serialization.Graph, value: graph };
    }
    violations.push(`${where}: no such endpoint in the fake`);
    return { status: 404 };
  };

  const handle = (request: IncomingMessage, response: ServerResponse, text: string) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/^\/api\/v2/, '');
    const where = `${request.method} ${path}`;
    requests.push(where);
    const at = faults.findIndex((planned) => planned.route.test(where));
    if (at >= 0) {
      const { fault } = faults.splice(at, 1)[0] as { fault: ZepFault };
      if ('malformed' in fault) return send(response, 200, fault.malformed);
      return send(response, fault.status, fault.body ?? JSON.stringify({ message: `fake fault ${fault.status}` }));
    }
    if (request.headers.authorization !== `Api-Key ${apiKey}`) {
      return send(response, 401, JSON.stringify({ message: 'unauthorized' }));
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      violations.push(`${where}: request body is not JSON`);
      return send(response, 400, JSON.stringify({ message: 'body is not JSON' }));
    }
    const reply = route(request.method ?? 'GET', path, url.searchParams, body);
    if (reply.schema === undefined) return send(response, reply.status, JSON.stringify({ message: where }));
    const raw = reply.schema.json(reply.value, STRICT);
    if (!raw.ok) {
      violations.push(`${where}: response breaks the SDK schema: ${JSON.stringify(raw.errors)}`);
      return send(response, 500, JSON.stringify({ message: 'fake built a bad response' }));
    }
    return send(response, reply.status, JSON.stringify(raw.value));
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handle(request, response, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v2`,
    apiKey,
    violations,
    requests,
    failNext: (match, fault) => void faults.push({ route: match, fault }),
    episodes: (graphId) => structuredClone(episodes.get(graphId) ?? []),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(body);
}
