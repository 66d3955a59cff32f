// Finds runs of consecutive characters of registered secrets in decoded text, so that a secret cut by a tool, a byte
// limit or the history's truncation before redaction leaves nothing of itself.
//
// Every registered text goes into one suffix automaton (each text ends with a separator of its own, which no text
// holds, so the automaton's substrings without one are exactly the texts' substrings). Scanning the haystack with it
// gives, at each position, the longest run ending there that is a substring of some registered text, in amortized
// constant time per character however many texts there are: no hashing, no candidates to verify, nothing rescanned.

/**
 * A window with fewer distinct characters than this is not looked for: `aaaaaaaaaa`, `4111111111` or `abcabcabca` occur
 * in ordinary text. Four keeps almost every window of a random secret: 3 in 100,000 of hex, fewer of anything richer.
 */
export const FRAGMENT_MIN_DISTINCT = 4;

/** Finds runs of `length` or more consecutive characters of the texts added to it. */
export type FragmentIndex = {
  readonly length: number;
  /** Adds `text` (already decoded and folded, as the haystacks will be). */
  add(text: string): void;
  /**
   * Appends to `ranges` the `[from, to)` of each maximal run of `length` or more characters of an added text that has
   * `length` consecutive characters with {@link FRAGMENT_MIN_DISTINCT} distinct ones among them, in increasing order.
   */
  find(haystack: string, ranges: Array<[number, number]>): void;
};

/** Creates an empty index that finds runs of at least `length` characters. */
export function createFragmentIndex(length: number): FragmentIndex {
  const automaton = createAutomaton();
  const added = new Set<string>();
  const add = (text: string): void => {
    if (text.length < length || added.has(text)) return;
    added.add(text);
    for (let index = 0; index < text.length; index++) automaton.extend(text.charCodeAt(index));
    automaton.extend(-added.size);
  };
  const find = (haystack: string, ranges: Array<[number, number]>): void => {
    if (added.size > 0 && haystack.length >= length) scan(automaton, length, haystack, ranges);
  };
  return { length, add, find };
}

// How often each code unit occurs in the current window. Shared: a scan runs synchronously to its end and leaves every
// count at zero.
let windowCounts: Uint32Array | undefined;

function scan(automaton: Automaton, length: number, haystack: string, ranges: Array<[number, number]>): void {
  const counts = (windowCounts ??= new Uint32Array(0x10000));
  const { link, len, firstSymbol, firstTarget, more } = automaton;
  let state = 0;
  let matched = 0;
  let distinct = 0;
  // The end of the last window of `length` characters with enough distinct ones.
  let eligibleEnd = -1;
  for (let index = 0; index < haystack.length; index++) {
    const unit = haystack.charCodeAt(index);
    if ((counts[unit] = counts[unit]! + 1) === 1) distinct++;
    if (index >= length) {
      const leaving = haystack.charCodeAt(index - length);
      if ((counts[leaving] = counts[leaving]! - 1) === 0) distinct--;
    }
    if (index >= length - 1 && distinct >= FRAGMENT_MIN_DISTINCT) eligibleEnd = index;
    let next = firstSymbol[state] === unit ? firstTarget[state]! : (more[state]?.get(unit) ?? -1);
    while (next < 0 && state !== 0) {
      state = link[state]!;
      matched = len[state]!;
      next = firstSymbol[state] === unit ? firstTarget[state]! : (more[state]?.get(unit) ?? -1);
    }
    if (next < 0) {
      state = 0;
      matched = 0;
    } else {
      state = next;
      matched++;
    }
    const from = index + 1 - matched;
    // The longest run ending here, when it holds a whole eligible window; runs found in order start in order, so one
    // that starts inside the last range (a run found before, or a whole secret the caller found) extends it.
    if (matched >= length && eligibleEnd >= from + length - 1) {
      const last = ranges.at(-1);
      if (last && last[0] <= from && from <= last[1]) last[1] = Math.max(last[1], index + 1);
      else ranges.push([from, index + 1]);
    }
  }
  for (let index = Math.max(0, haystack.length - length); index < haystack.length; index++)
    counts[haystack.charCodeAt(index)] = 0;
}

// State `s` goes by `firstSymbol[s]` to `firstTarget[s]`, and by each other symbol in `more[s]` to its target.
type Automaton = {
  len: number[];
  link: number[];
  firstSymbol: number[];
  firstTarget: number[];
  more: Array<Map<number, number> | undefined>;
  extend(symbol: number): void;
};

// A suffix automaton over numbers (code units, and negative separators). Most states have one transition, kept in
// two arrays; a state with more also has a map.
function createAutomaton(): Automaton {
  const len = [0];
  const link = [-1];
  const firstSymbol = [Number.NaN];
  const firstTarget = [-1];
  const more: Array<Map<number, number> | undefined> = [undefined];
  let last = 0;

  const next = (state: number, symbol: number): number =>
    firstSymbol[state] === symbol ? firstTarget[state]! : (more[state]?.get(symbol) ?? -1);
  const set = (state: number, symbol: number, target: number): void => {
    if (firstSymbol[state] === symbol || Number.isNaN(firstSymbol[state])) {
      firstSymbol[state] = symbol;
      firstTarget[state] = target;
    } else (more[state] ??= new Map()).set(symbol, target);
  };
  const addState = (length: number, from?: number): number => {
    len.push(length);
    link.push(from === undefined ? 0 : link[from]!);
    firstSymbol.push(from === undefined ? Number.NaN : firstSymbol[from]!);
    firstTarget.push(from === undefined ? -1 : firstTarget[from]!);
    const map = from === undefined ? undefined : more[from];
    more.push(map && new Map(map));
    return len.length - 1;
  };

  const extend = (symbol: number): void => {
    const current = addState(len[last]! + 1);
    let state = last;
    while (state !== -1 && next(state, symbol) < 0) {
      set(state, symbol, current);
      state = link[state]!;
    }
    if (state !== -1) {
      const target = next(state, symbol);
      if (len[state]! + 1 === len[target]) link[current] = target;
      else {
        const clone = addState(len[state]! + 1, target);
        for (; state !== -1 && next(state, symbol) === target; state = link[state]!) set(state, symbol, clone);
        link[target] = clone;
        link[current] = clone;
      }
    }
    last = current;
  };

  return { len, link, firstSymbol, firstTarget, more, extend };
}
