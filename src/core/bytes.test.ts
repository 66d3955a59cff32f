import { Buffer } from 'node:buffer';
import { afterEach, describe, expect, it, vi } from 'vitest';

const samples = [new Uint8Array(0), Uint8Array.of(0, 255, 128), Uint8Array.from({ length: 70_000 }, (_, i) => i % 251)];
const texts = ['', 'plain', 'Crème brûlée', '東京', '🦜🦜', 'lone \ud800 surrogate', 'end \udfff'];

// The module picks its base64 path when it loads, so each runtime is a fresh import.
async function load(withBuffer: boolean) {
  vi.resetModules();
  if (!withBuffer) vi.stubGlobal('Buffer', undefined);
  return import('./bytes.ts');
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe.each([
  ['with Node Buffer', true],
  ['without Buffer (other runtimes)', false],
])('bytes %s', (_name, withBuffer) => {
  it('encodes base64 as Buffer does, and decodes it back', async () => {
    const { base64ToBytes, bytesToBase64 } = await load(withBuffer);
    for (const bytes of samples) {
      const base64 = bytesToBase64(bytes);
      expect(base64).toBe(Buffer.from(bytes).toString('base64'));
      expect(base64ToBytes(base64)).toEqual(bytes);
    }
  });

  it('counts UTF-8 bytes as Buffer.byteLength does', async () => {
    const { utf8ByteLength } = await load(withBuffer);
    for (const text of texts) expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text));
  });
});
