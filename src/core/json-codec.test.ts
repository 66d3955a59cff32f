import { describe, expect, it } from 'vitest';
import { decodeJson, encodeJson } from './json-codec.ts';

describe('json codec', () => {
  it('round-trips bytes, dates, URLs, errors and undefined array slots through JSON text', () => {
    const error = Object.assign(new Error('rate limited'), { statusCode: 429 });
    error.name = 'AI_APICallError';
    const value = {
      bytes: new Uint8Array([1, 2, 255]),
      at: new Date('2025-01-02T03:04:05.000Z'),
      url: new URL('https://example.com/a?b=1'),
      error,
      list: [1, undefined, 'x'],
      looksTagged: { $date: 'not a date' },
      dropped: undefined,
    };
    const decoded = decodeJson(JSON.parse(JSON.stringify(encodeJson(value)))) as typeof value;
    expect(decoded.bytes).toEqual(value.bytes);
    expect(decoded.at).toEqual(value.at);
    expect(decoded.url.href).toBe(value.url.href);
    expect(decoded.error).toBeInstanceOf(Error);
    expect(decoded.error).toMatchObject({ name: 'AI_APICallError', message: 'rate limited', statusCode: 429 });
    expect(decoded.list).toEqual([1, undefined, 'x']);
    expect(decoded.looksTagged).toEqual({ $date: 'not a date' });
    expect('dropped' in decoded).toBe(false);
  });
});
