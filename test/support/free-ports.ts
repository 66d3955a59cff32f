import { createServer } from 'node:net';

/**
 * A block of `size` consecutive ports of 127.0.0.1 that are all free now, in 20000–29999 (below the ephemeral range,
 * so an outgoing connection does not take one meanwhile).
 */
export async function freePortBlock(size: number): Promise<{ from: number; to: number }> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const from = 20_000 + Math.floor(Math.random() * (10_000 - size));
    const ports = Array.from({ length: size }, (_, index) => from + index);
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return { from, to: from + size - 1 };
  }
  throw new Error('no free block of ports');
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
