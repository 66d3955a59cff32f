import { compareText, wordsOf } from '../../entry-text.ts';
import { indexedText } from '../../store-rules.ts';
import type { MemoryEntry } from '../../memory-store.ts';

/** The most distinct words of one entry that are indexed (PostgreSQL positions stop at 16383). */
export const MAX_INDEXED_WORDS = 16_000;
const MAX_LEXEME_BYTES = 2_000;

/**
 * An entry's words as a `tsvector` literal: each distinct word of the labels (title, key, tags) at weight A, then of
 * the text at weight B, lowercased by agency (not by the server's locale). Words past {@link MAX_INDEXED_WORDS} are
 * not indexed.
 */
export function tsvectorOf(entry: MemoryEntry): string {
  const { labels, body } = indexedText(entry);
  const parts: string[] = [];
  const positions = new Map<string, string[]>();
  let position = 0;
  for (const [text, weight] of [
    [labels, 'A'],
    [body, 'B'],
  ] as const) {
    for (const word of wordsOf(text.toWellFormed())) {
      if (position >= MAX_INDEXED_WORDS || Buffer.byteLength(word) > MAX_LEXEME_BYTES) continue;
      const list = positions.get(word) ?? [];
      if (list.length === 0) positions.set(word, list);
      list.push(`${++position}${weight}`);
    }
  }
  for (const [word, list] of positions) parts.push(`${lexeme(word)}:${list.join(',')}`);
  return parts.join(' ');
}

/** Query words as a `tsquery` literal that matches any of them. */
export function tsqueryOf(words: readonly string[]): string {
  return [...words].sort(compareText).map(lexeme).join(' | ');
}

function lexeme(word: string): string {
  return `'${word.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}
