import { describe, expect, it } from 'vitest';
import { canonicalDigest, canonicalJson } from './canonical-json.ts';
import { sha256Hex } from './sha256.ts';
import { AgencyError } from './errors.ts';

// IEEE-754 bit patterns and their canonical text, from RFC 8785 appendix B.
const RFC8785_NUMBERS: Array<[string, string | null]> = [
  ['0000000000000000', '0'],
  ['8000000000000000', '0'],
  ['0000000000000001', '5e-324'],
  ['8000000000000001', '-5e-324'],
  ['7fefffffffffffff', '1.7976931348623157e+308'],
  ['ffefffffffffffff', '-1.7976931348623157e+308'],
  ['4340000000000000', '9007199254740992'],
  ['c340000000000000', '-9007199254740992'],
  ['4430000000000000', '295147905179352830000'],
  ['7fffffffffffffff', null],
  ['7ff0000000000000', null],
  ['44b52d02c7e14af5', '9.999999999999997e+22'],
  ['44b52d02c7e14af6', '1e+23'],
  ['44b52d02c7e14af7', '1.0000000000000001e+23'],
  ['444b1ae4d6e2ef4e', '999999999999999700000'],
  ['444b1ae4d6e2ef4f', '999999999999999900000'],
  ['444b1ae4d6e2ef50', '1e+21'],
  ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ['3eb0c6f7a0b5ed8d', '0.000001'],
  ['41b3de4355555553', '333333333.3333332'],
  ['41b3de4355555554', '333333333.33333325'],
  ['41b3de4355555555', '333333333.3333333'],
  ['41b3de4355555556', '333333333.3333334'],
  ['41b3de4355555557', '333333333.33333343'],
  ['becbf647612f3696', '-0.0000033333333333333333'],
  ['43143ff3c1cb0959', '1424953923781206.2'],
];

function fromBits(hex: string): number {
  return new DataView(Uint8Array.from(Buffer.from(hex, 'hex')).buffer).getFloat64(0);
}

describe('canonicalJson (RFC 8785)', () => {
  it.each(RFC8785_NUMBERS)('formats the number with bits %s as %s', (bits, expected) => {
    const value = fromBits(bits);
    if (expected === null) {
      expect(() => canonicalJson(value)).toThrow(AgencyError);
    } else {
      expect(canonicalJson(value)).toBe(expected);
    }
  });

  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3)', () => {
    const input = JSON.parse(
      '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",' +
        '"\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
    );
    // Read the values in text order: JS objects would list the integer-like key "1" first.
    const text = canonicalJson(input);
    const order = [...text.matchAll(/:"([^"]*)"/g)].map((match) => match[1]);
    expect(order).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
  });

  it('reproduces the RFC 8785 §3.2.4 example byte for byte, string escapes included', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('is independent of key insertion order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 2], c: 'x' } })).toBe(canonicalJson({ a: { c: 'x', d: [1, 2] }, b: 1 }));
  });

  it('rejects values JSON cannot represent, with a clear code', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, undefined, cyclic, '\ud800']) {
      expect(() => canonicalJson(bad)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
  });
});

describe('canonicalDigest', () => {
  it('hashes the canonical form, so key order does not change the digest', () => {
    expect(canonicalDigest({ x: 1, y: [2] })).toBe(sha256Hex('{"x":1,"y":[2]}'));
    expect(canonicalDigest({ y: [2], x: 1 })).toBe(canonicalDigest({ x: 1, y: [2] }));
  });
});
