import { sha256Hex } from '../core/sha256.ts';

/** Orders strings by UTF-16 code units: the same result in every locale, unlike `localeCompare`. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `text` on one line: every run of whitespace becomes one space, and the ends are trimmed. */
export function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

/** The lowercase words of `text`: runs of letters and digits of two characters or more. */
export function wordsOf(text: string): Set<string> {
  const words = new Set<string>();
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) if (match[0].length >= 2) words.add(match[0]);
  return words;
}

/** The content hash used to dedupe: sha256 of the text on one line, lowercased. */
export function contentHash(text: string): string {
  return sha256Hex(oneLine(text).toLowerCase());
}
