// SHA-256 for every JS runtime. Node, Deno and Bun hash with their native `node:crypto`, reached through
// `process.getBuiltinModule` so that no import of a Node built-in stands in the root entry's module graph; elsewhere
// (a browser, a worker, an edge runtime) the FIPS 180-4 implementation below does it, synchronously, as callers expect.

type NodeCrypto = typeof import('node:crypto');
type BuiltinLoader = { getBuiltinModule?: (id: string) => unknown };

const nodeCrypto = (globalThis as { process?: BuiltinLoader }).process?.getBuiltinModule?.('node:crypto') as
  NodeCrypto | undefined;

/** The lowercase hex SHA-256 of a string (as UTF-8) or of bytes. */
export function sha256Hex(input: string | Uint8Array): string {
  if (nodeCrypto) return nodeCrypto.createHash('sha256').update(input).digest('hex');
  return portableSha256Hex(input);
}

/** {@link sha256Hex} without the native hash: what a runtime without `node:crypto` runs. */
export function portableSha256Hex(input: string | Uint8Array): string {
  const digest = sha256(typeof input === 'string' ? new TextEncoder().encode(input) : input);
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

function sha256(message: Uint8Array): Uint8Array {
  // Padding: a 1 bit, zeros, then the length in bits as a 64-bit big-endian number, to a multiple of 64 bytes.
  const blocks = Math.ceil((message.length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(message);
  padded[message.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(message.length / 0x20000000));
  view.setUint32(padded.length - 4, (message.length * 8) >>> 0);

  const hash = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15] as number;
      const b = w[i - 2] as number;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) | 0;
    }
    compress(hash, w);
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  hash.forEach((word, i) => outView.setUint32(i * 4, word));
  return out;
}

function compress(hash: Uint32Array, w: Uint32Array): void {
  let a = hash[0] as number;
  let b = hash[1] as number;
  let c = hash[2] as number;
  let d = hash[3] as number;
  let e = hash[4] as number;
  let f = hash[5] as number;
  let g = hash[6] as number;
  let h = hash[7] as number;
  for (let i = 0; i < 64; i++) {
    const t1 =
      (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + (K[i] as number) + (w[i] as number)) | 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  hash[0] = (hash[0] as number) + a;
  hash[1] = (hash[1] as number) + b;
  hash[2] = (hash[2] as number) + c;
  hash[3] = (hash[3] as number) + d;
  hash[4] = (hash[4] as number) + e;
  hash[5] = (hash[5] as number) + f;
  hash[6] = (hash[6] as number) + g;
  hash[7] = (hash[7] as number) + h;
}

function rotr(x: number, n: number): number {
  return (x >>> n) | (x << (32 - n));
}
