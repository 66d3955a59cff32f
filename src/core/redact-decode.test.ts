import { describe, expect, it } from 'vitest';
import { decodeForMatching } from './redact-decode.ts';

const ranges = (text: string) => {
  const { text: decoded, start, end } = decodeForMatching(text);
  return Array.from(decoded, (char, index) => [char, start?.[index] ?? index, end?.[index] ?? index + 1]);
};

describe('decodeForMatching', () => {
  it.each([
    ['a%2541B', 'aab'],
    ['%C3%A4%e2%82%ac', 'ä€'],
    ['\\u00E4\\"\\\\u0041', 'ä"a'],
    ['x&#X41;&#65;&AMP;&Lt;y', 'xaa&<y'],
    ['%F0%9F%98%80 &#x1F600;', '😀 😀'],
    ['ΣΟΦΟΣ ςσ', 'σοφοσ σσ'],
  ])('decodes and folds %s', (text, decoded) => {
    expect(decodeForMatching(text).text).toBe(decoded);
  });

  it.each(['%4', '%G1', '%C3', '%C3%4', '&#;', '&#x;', '&#65', '&amp', '&amp\u001b', '\\u12', '\\x41', '\\q'])(
    'leaves a broken or unknown escape as it is: %s',
    (text) => {
      expect(decodeForMatching(text).text).toBe(text.toLowerCase());
    },
  );

  it('maps each decoded character to the whole escape it came from, through every layer', () => {
    expect(ranges('a%2541&amp;#x42;\\u0043')).toEqual([
      ['a', 0, 1],
      ['a', 1, 6],
      ['b', 6, 16],
      ['c', 16, 22],
    ]);
  });
});
