// A TCP proxy in front of a server that drops connections on purpose: `cut()` destroys every open connection (the
// client sees a reset mid-stream), `stall()` stops passing the server's bytes on while keeping the sockets open (the
// client sees silence). Clients reach the server through it over real sockets.
import { createServer, Socket } from 'node:net';

export type CuttingProxy = {
  /** `127.0.0.1:<port>`, for the server's allowed hosts. */
  host: string;
  url: string;
  /** Where to forward; set once the server has its port. */
  target(port: number): void;
  /** Destroys every open connection; returns how many there were. */
  cut(): number;
  /** Holds back everything the server sends on the open connections whose last request line matches, which stay open. */
  stall(request: RegExp): number;
  close(): Promise<void>;
};

export async function startCuttingProxy(): Promise<CuttingProxy> {
  let targetPort = 0;
  const open = new Set<{ client: Socket; upstream: Socket; request: string }>();
  const server = createServer((client) => {
    const upstream = new Socket();
    const pair = { client, upstream, request: '' };

    open.add(pair);
    const end = () => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    upstream.connect(targetPort, '127.0.0.1', () => {
      // The request line of the last request on this (keep-alive) connection.
      client.on('data', (chunk: Buffer) => {
        const line = /^(GET|POST|PUT|DELETE|HEAD|OPTIONS) \S+/.exec(chunk.toString('latin1'));
        if (line) pair.request = line[0];
      });
      client.pipe(upstream);
      upstream.pipe(client);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    host: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}`,
    target: (value) => {
      targetPort = value;
    },
    cut() {
      const count = open.size;
      for (const { client, upstream } of [...open]) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      open.clear();
      return count;
    },
    stall(request) {
      const stalled = [...open].filter((pair) => request.test(pair.request));
      for (const { client, upstream } of stalled) upstream.unpipe(client);
      return stalled.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client, upstream } of open) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
