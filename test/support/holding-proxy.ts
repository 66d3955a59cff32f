// An HTTP proxy in front of one server that can hold a request on purpose: `before` it reaches the server (the server
// never sees it if it is then dropped), or `after` the server answered (the server did the work; the client never
// hears of it if it is then dropped). A test kills its client while a request is held, then drops or releases it.
import { createServer, type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Which requests a hold applies to. */
export type HoldMatch = { method: string; path: RegExp };

/** A held request: `arrived` resolves when one comes (and, `after`, was answered); then drop it or let it go on. */
export type Hold = {
  arrived: Promise<void>;
  /** The request, or the answer, is lost: the client's connection is destroyed. */
  drop(): void;
  /** The request goes on to the server, or the answer to the client. */
  release(): void;
};

export type HoldingProxy = {
  url: string;
  /** Holds the next request matching `match` (once). */
  hold(match: HoldMatch, when: 'before' | 'after'): Hold;
  /** Requests seen, as `METHOD path`. */
  seen: string[];
  close(): Promise<void>;
};

type Pending = HoldMatch & { when: 'before' | 'after'; arrive(): void; gate: Promise<'drop' | 'release'> };

/** Starts the proxy on a free port of 127.0.0.1, forwarding to `target` (an http URL). */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const upstream = new URL(target);
  const pending: Pending[] = [];
  const seen: string[] = [];
  const take = (request: IncomingMessage): Pending | undefined => {
    const index = pending.findIndex((one) => one.method === request.method && one.path.test(request.url ?? ''));
    return index === -1 ? undefined : pending.splice(index, 1)[0];
  };
  const server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    void handle(request, response, take(request), upstream).catch(() => response.destroy());
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    hold(match, when) {
      let arrive!: () => void;
      let settle!: (how: 'drop' | 'release') => void;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const gate = new Promise<'drop' | 'release'>((resolve) => (settle = resolve));
      pending.push({ ...match, when, arrive, gate });
      return { arrived, drop: () => settle('drop'), release: () => settle('release') };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handle(request: IncomingMessage, response: ServerResponse, held: Pending | undefined, upstream: URL) {
  const body = await readAll(request);
  if (held?.when === 'before') {
    held.arrive();
    if ((await held.gate) === 'drop') return void response.destroy();
  }
  const answer = await forward(request, body, upstream);
  if (held?.when === 'after') {
    held.arrive();
    if ((await held.gate) === 'drop') return void response.destroy();
  }
  response.writeHead(answer.status, answer.headers).end(answer.body);
}

function forward(
  request: IncomingMessage,
  body: Buffer,
  upstream: URL,
): Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = { ...request.headers, host: upstream.host, connection: 'close' };
    const outgoing = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers },
      (incoming) => {
        void readAll(incoming).then((all) => {
          const { connection: _, 'transfer-encoding': __, ...rest } = incoming.headers;
          resolve({
            status: incoming.statusCode ?? 502,
            headers: rest as Record<string, string>,
            body: all,
          });
        }, reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
