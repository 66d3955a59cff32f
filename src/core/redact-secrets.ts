import { decodeForMatching } from './redact-decode.ts';
import { createFragmentIndex, type FragmentIndex } from './redact-fragments.ts';
import { base64Spellings, exactSpellings, unicodeForms } from './redact-spellings.ts';

/** Finds registered secrets in text, in their exact spellings and decoded, and replaces each whole or in part. */
export type SecretMatcher = {
  /** Adds `secret`; one shorter than the matcher's minimum is ignored. */
  register(secret: string): void;
  /** `text` with every registered secret, and every run of `fragmentLength` of its characters, replaced. */
  redact(text: string): string;
};

/** Options for {@link createSecretMatcher}. */
export type SecretMatcherOptions = {
  /** Secrets (and spellings) shorter than this are ignored. */
  minLength: number;
  /** What each match is replaced with. */
  replacement: string;
  /** The fewest consecutive characters of a secret replaced on their own; `Infinity` replaces whole secrets only. */
  fragmentLength: number;
};

/** Creates a matcher for registered secrets. */
export function createSecretMatcher({ minLength, replacement, fragmentLength }: SecretMatcherOptions): SecretMatcher {
  const registered = new Set<string>();
  const exact = new Set<string>();
  const decoded = new Set<string>();
  const fragments = Number.isFinite(fragmentLength) ? createFragmentIndex(fragmentLength) : undefined;
  let exactOrdered: string[] = [];
  let decodedList: string[] = [];
  let shortestDecoded = Infinity;

  const register = (secret: string): void => {
    // The credential broker registers a value again at every tool call that loads it.
    if (typeof secret !== 'string' || secret.length < minLength || registered.has(secret)) return;
    registered.add(secret);
    const before = exact.size + decoded.size;
    for (const spelling of exactSpellings(secret)) if (spelling.length >= minLength) exact.add(spelling);
    for (const form of unicodeForms(secret)) {
      const folded = decodeForMatching(form).text;
      if (folded.length >= minLength) decoded.add(folded);
      fragments?.add(folded);
    }
    // Base64 is matched as written, never decoded; its fragments are looked for folded, like the rest of the text.
    for (const spelling of base64Spellings(secret)) fragments?.add(spelling.toLowerCase());
    if (exact.size + decoded.size === before) return;
    // Longest first, so a secret that contains another is removed whole.
    exactOrdered = [...exact].sort((a, b) => b.length - a.length);
    decodedList = [...decoded];
    shortestDecoded = Math.min(...decodedList.map((folded) => folded.length), fragments?.length ?? Infinity);
  };

  const redact = (text: string): string => {
    let out = text;
    for (const spelling of exactOrdered) if (out.includes(spelling)) out = out.split(spelling).join(replacement);
    // Decoding never lengthens text, so text shorter than every decoded secret and fragment cannot hold one.
    if (out.length < shortestDecoded) return out;
    return replaceDecoded(out, decodedList, fragments, replacement);
  };

  return { register, redact };
}

// Finds each decoded secret, and each run of a secret's characters, in the decoded text and replaces the original
// range it came from.
function replaceDecoded(
  text: string,
  secrets: readonly string[],
  fragments: FragmentIndex | undefined,
  replacement: string,
): string {
  const { text: haystack, start, end } = decodeForMatching(text);
  const found: Array<[number, number]> = [];
  for (const secret of secrets)
    for (let at = haystack.indexOf(secret); at !== -1; at = haystack.indexOf(secret, at + secret.length))
      found.push([at, at + secret.length]);
  fragments?.find(haystack, found);
  if (found.length === 0) return text;
  const ranges = found.map(([from, to]) => widen(text, start ? start[from]! : from, end ? end[to - 1]! : to));
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let copied = 0;
  for (const [from, to] of ranges) {
    // A range that starts inside one already replaced only extends it.
    if (from >= copied) out += text.slice(copied, from) + replacement;
    copied = Math.max(copied, to);
  }
  return out + text.slice(copied);
}

// A fragment can begin or end between the two halves of a surrogate pair; the whole character goes, so no lone half
// is left for a writer to turn into U+FFFD.
function widen(text: string, from: number, to: number): [number, number] {
  const low = (index: number) => (text.charCodeAt(index) & 0xfc00) === 0xdc00;
  const high = (index: number) => (text.charCodeAt(index) & 0xfc00) === 0xd800;
  return [from > 0 && low(from) && high(from - 1) ? from - 1 : from, low(to) && high(to - 1) ? to + 1 : to];
}
