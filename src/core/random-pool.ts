import { randomBytes } from 'node:crypto';

/**
 * Random bytes served from a pool refilled 4 KiB at a time. A call into the CSPRNG costs tens of µs when the thread
 * has just woken from an fsync, which would dominate a journal that fsyncs every append or a checkpoint that names a
 * fresh temp file; Node's `randomUUID` caches its entropy the same way.
 */
export function createRandomPool(poolBytes = 4096): (size: number) => Uint8Array {
  let pool = new Uint8Array(0);
  let offset = 0;
  return (size) => {
    if (size > poolBytes) return randomBytes(size);
    if (offset + size > pool.byteLength) {
      pool = randomBytes(poolBytes);
      offset = 0;
    }
    offset += size;
    return pool.subarray(offset - size, offset);
  };
}
