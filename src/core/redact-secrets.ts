import { decodeForMatching } from './redact-decode.ts';
import { exactSpellings, unicodeForms } from './redact-spellings.ts';

/** Finds registered secrets in text, in their exact spellings and decoded, and replaces each whole. */
export type SecretMatcher = {
  /** Adds `secret`; one shorter than the matcher's minimum is ignored. */
  register(secret: string): void;
  /** `text` with every registered secret replaced. */
  redact(text: string): string;
};

/** Creates a matcher that ignores secrets (and spellings) shorter than `minLength` and writes `replacement`. */
export function createSecretMatcher(minLength: number, replacement: string): SecretMatcher {
  const exact = new Set<string>();
  const decoded = new Set<string>();
  let exactOrdered: string[] = [];
  let decodedList: string[] = [];
  let shortestDecoded = Infinity;

  const register = (secret: string): void => {
    if (typeof secret !== 'string' || secret.length < minLength) return;
    const before = exact.size + decoded.size;
    for (const spelling of exactSpellings(secret)) if (spelling.length >= minLength) exact.add(spelling);
    for (const form of unicodeForms(secret)) {
      const folded = decodeForMatching(form).text;
      if (folded.length >= minLength) decoded.add(folded);
    }
    if (exact.size + decoded.size === before) return;
    // Longest first, so a secret that contains another is removed whole.
    exactOrdered = [...exact].sort((a, b) => b.length - a.length);
    decodedList = [...decoded];
    shortestDecoded = Math.min(...decodedList.map((folded) => folded.length));
  };

  const redact = (text: string): string => {
    let out = text;
    for (const spelling of exactOrdered) if (out.includes(spelling)) out = out.split(spelling).join(replacement);
    // Decoding never lengthens text, so text shorter than every decoded secret cannot hold one.
    if (out.length < shortestDecoded) return out;
    return replaceDecoded(out, decodedList, replacement);
  };

  return { register, redact };
}

// Finds each decoded secret in the decoded text and replaces the original range it came from.
function replaceDecoded(text: string, secrets: readonly string[], replacement: string): string {
  const { text: haystack, start, end } = decodeForMatching(text);
  const ranges: Array<[number, number]> = [];
  for (const secret of secrets) {
    const last = secret.length - 1;
    for (let at = haystack.indexOf(secret); at !== -1; at = haystack.indexOf(secret, at + secret.length))
      ranges.push([start ? start[at]! : at, end ? end[at + last]! : at + last + 1]);
  }
  if (ranges.length === 0) return text;
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
