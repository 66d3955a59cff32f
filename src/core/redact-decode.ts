// Text decoded for secret matching: URL escapes, JSON and JavaScript escapes and HTML character references are
// undone, and letters are folded to lower case, while each decoded code unit remembers the range of the original text
// it came from. A registered secret decoded the same way is then found with `indexOf`, and the original range is what
// gets replaced. Every pass is a single scan with bounded look-ahead, so redaction stays linear in the text's length.

/** How many layers of encoding are undone: enough for a URL-encoded JSON string inside JSON, or `%2541`. */
export const DECODE_PASSES = 4;

/** `text` decoded and folded; `start[i]`/`end[i]` bound the original text behind `text[i]` (absent: the same index). */
export type DecodedText = { text: string; start?: Int32Array; end?: Int32Array };

type Units = { units: Uint16Array; length: number; start: Int32Array; end: Int32Array };
type Escape = { point: number; next: number };

// The start of an escape some pass could undo. Text without one only needs folding, which keeps every position.
const ESCAPE = /%[0-9a-f]{2}|&(?:#x?[0-9a-f]|amp;|lt;|gt;|quot;|apos;)|\\[u"'\\/bfnrt]/i;

/** Decodes and case-folds `text` for matching against secrets decoded the same way. */
export function decodeForMatching(text: string): DecodedText {
  if (!ESCAPE.test(text)) {
    const lower = text.toLowerCase();
    // Lower-casing never shortens a code unit, so an unchanged length means each unit stayed in place.
    if (lower.length === text.length) return { text: lower.includes('ς') ? lower.replaceAll('ς', 'σ') : lower };
  }
  // Two buffers, each pass decoding from one into the other: decoding never lengthens text.
  let current = unitsOf(text);
  let spare = emptyUnits(text.length);
  for (let pass = 0; pass < DECODE_PASSES && decodePass(current, spare); pass++) [current, spare] = [spare, current];
  const { units, length, start, end } = current;
  const lower = lowerCaseTable();
  for (let index = 0; index < length; index++) units[index] = lower[units[index]!]!;
  return { text: stringOf(units, length), start: start.subarray(0, length), end: end.subarray(0, length) };
}

function emptyUnits(length: number): Units {
  return { units: new Uint16Array(length), length: 0, start: new Int32Array(length), end: new Int32Array(length) };
}

function unitsOf(text: string): Units {
  const units = emptyUnits(text.length);
  for (let index = 0; index < text.length; index++) push(units, text.charCodeAt(index), index, index + 1);
  return units;
}

// Undoes one layer of escapes from `source` into `out`; false when there was none.
function decodePass(source: Units, out: Units): boolean {
  const { units, length } = source;
  out.length = 0;
  let changed = false;
  let index = 0;
  while (index < length) {
    const unit = units[index]!;
    const escape =
      unit === 0x25
        ? percentAt(units, index, length)
        : unit === 0x26
          ? referenceAt(units, index, length)
          : unit === 0x5c
            ? backslashAt(units, index, length)
            : undefined;
    const next = escape?.next ?? index + 1;
    const from = source.start[index]!;
    const to = source.end[next - 1]!;
    if (escape === undefined) push(out, unit, from, to);
    else if (escape.point > 0xffff) {
      push(out, 0xd800 + ((escape.point - 0x10000) >> 10), from, to);
      push(out, 0xdc00 + ((escape.point - 0x10000) & 0x3ff), from, to);
    } else push(out, escape.point, from, to);
    changed ||= escape !== undefined;
    index = next;
  }
  return changed;
}

function push(out: Units, unit: number, from: number, to: number): void {
  out.units[out.length] = unit;
  out.start[out.length] = from;
  out.end[out.length] = to;
  out.length++;
}

function hexDigit(unit: number | undefined): number {
  if (unit === undefined) return -1;
  if (unit >= 0x30 && unit <= 0x39) return unit - 0x30;
  const lower = unit | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

function percentByte(units: Uint16Array, index: number, length: number): number {
  if (index + 2 >= length || units[index] !== 0x25) return -1;
  const high = hexDigit(units[index + 1]);
  const low = hexDigit(units[index + 2]);
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

// `%XX`, or a whole UTF-8 sequence of them (`%E2%82%AC`); a broken sequence is left as it is.
function percentAt(units: Uint16Array, index: number, length: number): Escape | undefined {
  const lead = percentByte(units, index, length);
  if (lead < 0) return undefined;
  if (lead < 0x80) return { point: lead, next: index + 3 };
  const extra =
    lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
  if (extra === 0) return undefined;
  let point = lead & (0x3f >> extra);
  let next = index + 3;
  for (let count = 0; count < extra; count++, next += 3) {
    const byte = percentByte(units, next, length);
    if (byte < 0x80 || byte > 0xbf) return undefined;
    point = (point << 6) | (byte & 0x3f);
  }
  return point > 0x10ffff ? undefined : { point, next };
}

const NAMED_REFERENCES: ReadonlyArray<readonly [string, number]> = [
  ['amp;', 0x26],
  ['lt;', 0x3c],
  ['gt;', 0x3e],
  ['quot;', 0x22],
  ['apos;', 0x27],
];
// Digits read in a numeric reference, leading zeros included: a bound keeps `&#000…` from being scanned twice.
const MAX_REFERENCE_DIGITS = 10;

// `&#NN;`, `&#xHH;` and the five named references that HTML and XML escaping produce.
function referenceAt(units: Uint16Array, index: number, length: number): Escape | undefined {
  if (units[index + 1] === 0x23) {
    let next = index + 2;
    const hex = (units[next] ?? 0) | 0x20;
    const base = hex === 0x78 ? 16 : 10;
    if (base === 16) next++;
    let point = 0;
    let digits = 0;
    for (; next < length && digits < MAX_REFERENCE_DIGITS; next++, digits++) {
      const digit = hexDigit(units[next]);
      if (digit < 0 || digit >= base) break;
      point = point * base + digit;
    }
    return digits === 0 || units[next] !== 0x3b || point > 0x10ffff ? undefined : { point, next: next + 1 };
  }
  for (const [name, point] of NAMED_REFERENCES) {
    let matched = 0;
    while (matched < name.length && sameLetter(units[index + 1 + matched], name.charCodeAt(matched))) matched++;
    if (matched === name.length) return { point, next: index + 1 + matched };
  }
  return undefined;
}

// `unit` is `lower` (a lower-case letter or `;`) or, for a letter, its upper case: HTML also knows `&AMP;`.
function sameLetter(unit: number | undefined, lower: number): boolean {
  return unit === lower || (lower >= 0x61 && lower <= 0x7a && unit === lower - 0x20);
}

const SIMPLE_ESCAPES: Readonly<Record<number, number>> = {
  0x22: 0x22, // \"
  0x27: 0x27, // \'
  0x2f: 0x2f, // \/
  0x5c: 0x5c, // \\
  0x62: 0x08, // \b
  0x66: 0x0c, // \f
  0x6e: 0x0a, // \n
  0x72: 0x0d, // \r
  0x74: 0x09, // \t
};

// JSON's escapes (`\uXXXX`, `\"`, `\\`, `\n`…) and JavaScript's `\'`.
function backslashAt(units: Uint16Array, index: number, length: number): Escape | undefined {
  const kind = units[index + 1];
  if (kind === undefined) return undefined;
  if (kind === 0x75) {
    if (index + 5 >= length) return undefined;
    let point = 0;
    for (let offset = 2; offset < 6; offset++) {
      const digit = hexDigit(units[index + offset]);
      if (digit < 0) return undefined;
      point = point * 16 + digit;
    }
    return { point, next: index + 6 };
  }
  const simple = SIMPLE_ESCAPES[kind];
  return simple === undefined ? undefined : { point: simple, next: index + 2 };
}

let lowerCase: Uint16Array | undefined;

// Each UTF-16 unit's lower-case form when that is one unit too (so positions stay put), else the unit itself. A final
// sigma folds like any sigma: `toLowerCase` picks between them by context, which differs between a text and a secret.
function lowerCaseTable(): Uint16Array {
  if (lowerCase) return lowerCase;
  const table = new Uint16Array(0x10000);
  for (let unit = 0; unit < 0x10000; unit++) {
    const lower = String.fromCharCode(unit).toLowerCase();
    table[unit] = lower.length === 1 ? lower.charCodeAt(0) : unit;
  }
  table[0x3c2] = 0x3c3;
  lowerCase = table;
  return table;
}

const UTF16 = new TextDecoder('utf-16le');

// One code unit in, one out: an unpaired surrogate becomes U+FFFD, so positions still line up.
function stringOf(units: Uint16Array, length: number): string {
  return UTF16.decode(units.subarray(0, length));
}
