import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { portableSha256Hex, sha256Hex } from './sha256.ts';

const nodeSha256 = (input: string | Uint8Array) => createHash('sha256').update(input).digest('hex');

describe('sha256Hex', () => {
  it('gives the FIPS 180-4 test vectors, natively and portably', () => {
    for (const hash of [sha256Hex, portableSha256Hex]) {
      expect(hash('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
      expect(hash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      expect(hash('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
        '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
      );
    }
  });

  it('agrees with node:crypto across block boundaries, bytes and non-ASCII text', () => {
    // 55, 56 and 64 bytes are where the padding spills into a second block.
    for (const length of [1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 131 + length) % 256);
      expect(portableSha256Hex(bytes)).toBe(nodeSha256(bytes));
    }
    const text = 'Crème brûlée, 東京, 🦜 '.repeat(40);
    expect(portableSha256Hex(text)).toBe(nodeSha256(text));
  });
});
