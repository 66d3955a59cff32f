/** One character position of a wildcard: a literal code point, `?` (any one character) or a character class. */
export type WildcardChar =
  | { readonly kind: 'char'; readonly code: number }
  | { readonly kind: 'any' }
  | { readonly kind: 'class'; readonly negated: boolean; readonly ranges: readonly (readonly [number, number])[] };

/** One token of a wildcard: a character position, or `*` (any run of characters, possibly empty). */
export type WildcardToken = WildcardChar | { readonly kind: 'star' };

/** A wildcard compiled by {@link compileWildcard}, matched by {@link matchWildcard}. */
export type Wildcard = {
  /** The runs of character positions between stars; with no star there is exactly one. */
  readonly chunks: readonly (readonly WildcardChar[])[];
  readonly hasStar: boolean;
  /** The fewest characters a match needs: every position outside the stars. */
  readonly minLength: number;
};

/**
 * Compiles wildcard tokens for {@link matchWildcard}: the positions are grouped into the fixed-length runs between
 * stars, and consecutive stars collapse into one.
 *
 * @example
 * const w = compileWildcard([{ kind: 'char', code: 0x66 }, { kind: 'star' }]); // f*
 */
export function compileWildcard(tokens: readonly WildcardToken[]): Wildcard {
  const chunks: WildcardChar[][] = [[]];
  for (const token of tokens) {
    if (token.kind === 'star') {
      if (chunks.length === 1 || chunks.at(-1)!.length > 0) chunks.push([]);
    } else {
      chunks.at(-1)!.push(token);
    }
  }
  const minLength = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  return { chunks, hasStar: chunks.length > 1, minLength };
}

/**
 * True when the whole of `text` matches. Characters are Unicode code points and comparison is case-sensitive.
 *
 * It never backtracks. A text matches `C0*C1*…*Ck` exactly when C0 is a prefix, Ck a suffix after it, and C1…Ck-1
 * occur in order, without overlap, in between. Each middle run is placed at its leftmost occurrence: the runs have
 * fixed lengths, so a leftmost placement ends earliest and leaves the most room for the runs after it; any match
 * can be shifted left into that one. Each run is searched once, from where the previous one ended, trying at most n
 * start positions of at most |Ci| comparisons, so the time is O(n·m) for a text of n characters and a pattern of m
 * tokens, whatever the number of stars (a backtracking RegExp for `*a*a*a*a*a*b` is O(n⁶)).
 */
export function matchWildcard(wildcard: Wildcard, text: string | readonly number[]): boolean {
  const chars = typeof text === 'string' ? codePointsOf(text) : text;
  const { chunks } = wildcard;
  if (chars.length < wildcard.minLength) return false;
  const first = chunks[0]!;
  if (!wildcard.hasStar) return chars.length === first.length && runMatchesAt(first, chars, 0);
  const last = chunks.at(-1)!;
  const end = chars.length - last.length;
  if (!runMatchesAt(first, chars, 0) || !runMatchesAt(last, chars, end)) return false;
  let position = first.length;
  for (let index = 1; index < chunks.length - 1; index++) {
    const run = chunks[index]!;
    const found = findRun(run, chars, position, end);
    if (found === -1) return false;
    position = found + run.length;
  }
  return true;
}

/** The code points of `text`, for matching one text against several wildcards without decoding it each time. */
export function codePointsOf(text: string): number[] {
  const codes: number[] = [];
  for (const char of text) codes.push(char.codePointAt(0)!);
  return codes;
}

/** True when `char` matches the code point `code`. */
export function charMatches(char: WildcardChar, code: number): boolean {
  if (char.kind === 'char') return char.code === code;
  if (char.kind === 'any') return true;
  let inside = false;
  for (const [low, high] of char.ranges) {
    if (code >= low && code <= high) {
      inside = true;
      break;
    }
  }
  return inside !== char.negated;
}

function runMatchesAt(run: readonly WildcardChar[], chars: readonly number[], start: number): boolean {
  for (let offset = 0; offset < run.length; offset++) {
    if (!charMatches(run[offset]!, chars[start + offset]!)) return false;
  }
  return true;
}

// The leftmost start in [from, end - run.length] where the run matches, or -1.
function findRun(run: readonly WildcardChar[], chars: readonly number[], from: number, end: number): number {
  for (let start = from; start + run.length <= end; start++) {
    if (runMatchesAt(run, chars, start)) return start;
  }
  return -1;
}
