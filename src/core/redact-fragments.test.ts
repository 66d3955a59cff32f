// Fragments of registered secrets: text cut before it is redacted (a tool's byte limit, an output cap, the history's
// truncation) must not keep 10 consecutive characters of a secret, in any spelling the redactor knows.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRedactor, MIN_FRAGMENT_LENGTH, REDACTED } from './redact.ts';
import { createFragmentIndex, FRAGMENT_MIN_DISTINCT } from './redact-fragments.ts';

// Non-ASCII, a character NFD decomposes, characters every encoding spells differently, and an emoji.
const SECRET = 'Zq81xW4v€Lr0😀p/Tq7n+ä&"kY3mHs9';
const windows = (text: string, size = MIN_FRAGMENT_LENGTH) =>
  Array.from({ length: Math.max(0, text.length - size + 1) }, (_, start) => text.slice(start, start + size));
const hex4 = (unit: number) => unit.toString(16).padStart(4, '0');
// Random-looking values, the same in every run: a window of few distinct characters must not make a test flaky.
const hexOf = (seed: string) => createHash('sha256').update(seed).digest('hex');
const escapeUnits = (text: string) =>
  Array.from({ length: text.length }, (_, index) => `\\u${hex4(text.charCodeAt(index))}`).join('');

/** No 10 consecutive characters of `secret` (or of any of `spellings`) are left in `output`. */
function expectNoFragment(output: string, secret = SECRET, ...spellings: string[]): void {
  for (const form of [secret, ...spellings]) for (const piece of windows(form)) expect(output).not.toContain(piece);
  expect(output.isWellFormed()).toBe(true);
}

describe('createRedactor: fragments of registered secrets', () => {
  const redactor = createRedactor({ extraSecrets: [SECRET] });

  it.each([
    ['alone', (piece: string) => piece, REDACTED],
    ['at the start', (piece: string) => `${piece} and more`, `${REDACTED} and more`],
    ['in the middle', (piece: string) => `before ${piece} after`, `before ${REDACTED} after`],
    ['at the end', (piece: string) => `cut here: ${piece}`, `cut here: ${REDACTED}`],
  ])('redacts every run of 10 or more of its characters %s', (_where, place, expected) => {
    for (let from = 0; from + 10 <= SECRET.length; from++) {
      for (const to of [from + 10, from + 13, SECRET.length]) {
        const piece = SECRET.slice(from, to);
        if (!piece.isWellFormed() || to > SECRET.length) continue;
        const output = redactor.redactText(place(piece));
        expect(output, piece).toBe(expected);
      }
    }
  });

  it('leaves 9 consecutive characters alone, and redacts 10', () => {
    expect(redactor.redactText(`x ${SECRET.slice(2, 11)} y`)).toBe(`x ${SECRET.slice(2, 11)} y`);
    expect(redactor.redactText(`x ${SECRET.slice(2, 12)} y`)).toBe(`x ${REDACTED} y`);
  });

  it('never leaves half an emoji when a fragment starts or ends inside one', () => {
    const at = SECRET.indexOf('😀');
    // A cut at code units lands between the emoji's two halves.
    for (const text of [SECRET.slice(0, at + 1), SECRET.slice(at + 1), `😀${SECRET.slice(at + 2)}`]) {
      const output = redactor.redactText(`[${text}]`);
      expect(output.isWellFormed(), text).toBe(true);
      expectNoFragment(output);
    }
    expect(redactor.redactText(`😀 ${SECRET.slice(at + 2)}`)).toBe(`😀 ${REDACTED}`);
    // Another emoji that shares one half with the secret's goes whole with the run, not half of it.
    expect(redactor.redactText(`x\uD83C${SECRET.slice(at + 1)}`)).toBe(`x${REDACTED}`);
    expect(redactor.redactText(`${SECRET.slice(0, at)}😁x`)).toBe(`${REDACTED}x`);
  });

  it.each([
    ['URL-encoded', encodeURIComponent(SECRET.slice(4, 17))],
    ['half plain, half URL-encoded', SECRET.slice(3, 9) + encodeURIComponent(SECRET.slice(9, 16))],
    ['URL-encoded and cut inside an escape', encodeURIComponent(SECRET).slice(0, 40)],
    ['\\uXXXX-escaped', escapeUnits(SECRET.slice(6, 18))],
    ['JSON-escaped inside JSON', JSON.stringify(JSON.stringify(SECRET.slice(12))).slice(1, -1)],
    ['as HTML references', Array.from(SECRET.slice(0, 12), (char) => `&#${char.codePointAt(0)};`).join('')],
    ['in upper case', SECRET.slice(0, 14).toUpperCase()],
    ['in NFD', SECRET.slice(8, 22).normalize('NFD')],
  ])('redacts a fragment %s', (_name, spelled) => {
    const output = redactor.redactText(`<${spelled}>`);
    expect(output, output).toContain(REDACTED);
    expect(output.length, output).toBeLessThan(REDACTED.length + 10);
    expectNoFragment(output, SECRET, spelled);
  });

  it.each([0, 1, 2])('redacts a cut piece of its base64 at byte offset %i', (offset) => {
    const bytes = Buffer.from(`${'#'.repeat(offset)}${SECRET}`);
    const from = Math.ceil((offset * 8) / 6);
    const to = Math.floor(((offset + Buffer.byteLength(SECRET)) * 8) / 6);
    for (const encoding of ['base64', 'base64url'] as const) {
      const encoded = bytes.toString(encoding);
      const core = encoded.slice(from, to);
      // Cut inside the secret's bytes, at either end.
      for (const piece of [encoded.slice(0, from + 14), encoded.slice(from + 9)]) {
        const output = redactor.redactText(`data:${piece}`);
        expect(output).toContain(REDACTED);
        expectNoFragment(output, SECRET, core);
      }
    }
  });

  it('redacts fragments of two secrets that touch, and each of many repeated', () => {
    const other = 'Pm5sXe2Rk7Hw0Jd9Vb';
    const both = createRedactor({ extraSecrets: [SECRET, other] });
    expect(both.redactText(`${SECRET.slice(-11)}${other.slice(0, 12)}!`)).toBe(`${REDACTED}!`);
    const many = `${SECRET.slice(0, 12)} `.repeat(50);
    expect(both.redactText(many)).toBe(`${REDACTED} `.repeat(50));
  });

  it('leaves low-variety runs of a secret (aaaaaaaaaa, 1111111111) to whole-secret matching', () => {
    const plain = createRedactor({ extraSecrets: ['aaaaaaaaaaaaaaaa', '4111111111111111', 'xK9#mQ-aaaaaaaaaaaa-7'] });
    for (const text of ['aaaaaaaaaaaa', 'card 1111111111 or 4111111111', 'Q-aaaaaaaaaaa'])
      expect(plain.redactText(text), text).toBe(text);
    expect(plain.redactText('=aaaaaaaaaaaaaaaa=')).toBe(`=${REDACTED}=`);
    // A run that holds 10 characters of some variety goes whole, its plain tail included.
    expect(plain.redactText('key xK9#mQ-aaaaaaaaaaaa-')).toBe(`key ${REDACTED}`);
  });

  it('leaves ordinary text alone with 20 random secrets registered', () => {
    const secrets = Array.from(
      { length: 20 },
      (_, index) => `tok_${Buffer.from(hexOf(`tok ${index}`), 'hex').toString('base64url')}`,
    );
    const many = createRedactor({ extraSecrets: secrets });
    const prose = [
      'Agency runs governed agents. They plan, ask, act and verify; every step is journaled.',
      JSON.stringify({ version: 'plan.v1', goal: 'Summarise task/input.txt', steps: [{ id: 's1', title: 'Write' }] }),
      'https://example.com/search?q=governed+agents&page=2 %E2%82%AC &amp; \\u00e4',
      'SGVsbG8sIHdvcmxkISBUaGlzIGlzIGJhc2U2NCB0ZXh0Lg==',
    ];
    for (const text of prose) expect(many.redactText(text)).toBe(text);
  });

  it('takes its fragment length as an option', () => {
    const piece = SECRET.slice(1, 16);
    expect(createRedactor({ extraSecrets: [SECRET], fragmentLength: 16 }).redactText(piece)).toBe(piece);
    expect(createRedactor({ extraSecrets: [SECRET], fragmentLength: 15 }).redactText(piece)).toBe(REDACTED);
    const wholeOnly = createRedactor({ extraSecrets: [SECRET], fragmentLength: Infinity });
    expect(wholeOnly.redactText(SECRET.slice(0, -1))).toBe(SECRET.slice(0, -1));
    expect(wholeOnly.redactText(SECRET)).toBe(REDACTED);
    for (const fragmentLength of [0, 7, 10.5, Number.NaN])
      expect(() => createRedactor({ fragmentLength })).toThrow(/fragmentLength must be an integer of at least 8/);
  });
});

describe('createFragmentIndex', () => {
  // Every substring of 10 or more characters that some text holds and that has a varied window, by brute force.
  function covered(haystack: string, texts: readonly string[]): boolean[] {
    const marks = Array.from({ length: haystack.length }, () => false);
    const varied = (piece: string) => windows(piece).some((window) => new Set(window).size >= FRAGMENT_MIN_DISTINCT);
    for (let from = 0; from < haystack.length; from++)
      for (let to = from + 10; to <= haystack.length; to++) {
        const piece = haystack.slice(from, to);
        if (!texts.some((text) => text.includes(piece))) break;
        if (varied(piece)) marks.fill(true, from, to);
      }
    return marks;
  }

  it('extends a range the caller found, never shortens it', () => {
    const index = createFragmentIndex(10);
    index.add('zq81xw4vlr0p');
    const ranges: Array<[number, number]> = [[0, 30]];
    index.find(`zq81xw4vlr${'-'.repeat(40)}`, ranges);
    expect(ranges).toEqual([[0, 30]]);
    index.find(`${'-'.repeat(25)}zq81xw4vlr0p`, ranges);
    expect(ranges).toEqual([[0, 37]]);
  });

  it('finds exactly the runs a brute-force search finds, on 300 random texts from a small alphabet', () => {
    // A fixed sequence of pseudo-random numbers, so a failure can be replayed.
    let seed = 42;
    const next = (below: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % below;
    const word = (length: number, alphabet: string) =>
      Array.from({ length }, () => alphabet[next(alphabet.length)]).join('');
    for (let round = 0; round < 300; round++) {
      const alphabet = 'abcdef'.slice(0, 3 + next(4));
      const texts = Array.from({ length: 1 + next(4) }, () => word(10 + next(15), alphabet));
      const index = createFragmentIndex(10);
      for (const text of texts) index.add(text);
      // Pieces of the texts with random characters between them, so runs touch, overlap and stop short.
      let haystack = '';
      while (haystack.length < 60) {
        const text = texts[next(texts.length)]!;
        const from = next(text.length);
        haystack += text.slice(from, from + 4 + next(text.length)) + word(next(3), alphabet);
      }
      const ranges: Array<[number, number]> = [];
      index.find(haystack, ranges);
      const found = Array.from({ length: haystack.length }, () => false);
      for (const [from, to] of ranges) found.fill(true, from, to);
      expect(found, JSON.stringify({ texts, haystack, ranges })).toEqual(covered(haystack, texts));
    }
  });
});

describe('createRedactor: fragment matching stays linear', () => {
  it('scrubs 1 MB holding 2,000 fragments of 20 secrets, in well under a second', () => {
    const secrets = Array.from({ length: 20 }, (_, index) => `cred-${index}-${hexOf(`cred ${index}`).slice(0, 32)}`);
    const redactor = createRedactor({ extraSecrets: secrets });
    const filler = 'Agency runs governed agents; they plan, ask, act and verify. ';
    const planted: string[] = [];
    let text = '';
    for (let index = 0; text.length < 1_000_000; index++) {
      const secret = secrets[index % secrets.length]!;
      const from = index % (secret.length - 10);
      const piece = secret.slice(from, from + 10 + (index % (secret.length - from - 9)));
      const spelled =
        index % 3 === 0
          ? piece.toUpperCase()
          : index % 3 === 1
            ? Array.from(piece, (char) => `%${char.charCodeAt(0).toString(16)}`).join('')
            : piece;
      planted.push(piece);
      text += `${filler.repeat(7)}${spelled} `;
    }
    let best = Infinity;
    let output = '';
    for (let run = 0; run < 3; run++) {
      const started = performance.now();
      output = redactor.redactText(text);
      best = Math.min(best, performance.now() - started);
    }
    expect(planted.length).toBeGreaterThan(2_000);
    expect(output.split(REDACTED)).toHaveLength(planted.length + 1);
    for (const secret of secrets) for (const piece of windows(secret)) expect(output).not.toContain(piece);
    // About 30–60 ms on a laptop; the bound leaves room for a busy machine, not for a quadratic scan.
    expect(best).toBeLessThan(1_000);
  });
});
