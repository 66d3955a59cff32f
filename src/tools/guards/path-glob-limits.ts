import type { AgencyError } from '../../core/errors.ts';
import { classEnd } from './path-glob-class.ts';
import { refusal } from './path-refusal.ts';

/**
 * How complex a glob pattern may be. Matching is linear in the pattern whatever it holds; these limits keep the
 * per-entry cost small and give the model a clear error instead of a slow call.
 */
export const GLOB_LIMITS = Object.freeze({
  /** UTF-8 bytes in the whole pattern. @default 1024 */
  bytes: 1024,
  /** Wildcards: each run of `*` (so `**` is one) and each `?`, outside character classes. @default 16 */
  wildcards: 16,
  /** Character classes such as `[a-z]`. @default 16 */
  classes: 16,
  /** Brace groups such as `{a,b}` or `{1..3}`, counted where they are written. @default 8 */
  braceGroups: 8,
  /** Brace groups inside brace groups: `{a,{b,c}}` has depth 2. @default 3 */
  braceDepth: 3,
  /** Patterns the braces expand to, multiplied over the whole pattern (`{a,b}/{c,d}` is 4). @default 64 */
  alternatives: 64,
  /** Characters of all expanded alternatives together. @default 4096 */
  expandedChars: 4096,
});

/** The refusal for a pattern over one of {@link GLOB_LIMITS}: it names the count, the limit and the way out. */
export function overLimit(pattern: string, what: string, count: number, limit: number): AgencyError {
  return refusal(
    'path_invalid',
    pattern,
    `has ${count} ${what}; the limit is ${limit}`,
    'use a simpler pattern or several calls',
  );
}

/**
 * Checks the limits that can be read off the pattern's text: its length, its wildcards and its character classes.
 * Braces are checked while they are parsed.
 */
export function checkGlobText(pattern: string): void {
  const bytes = Buffer.byteLength(pattern, 'utf8');
  if (bytes > GLOB_LIMITS.bytes) throw overLimit(pattern, 'bytes', bytes, GLOB_LIMITS.bytes);
  let wildcards = 0;
  let classes = 0;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '[') {
      const end = classEnd(pattern, index);
      if (end !== -1) {
        classes++;
        index = end;
      }
    } else if (char === '?' || (char === '*' && pattern[index - 1] !== '*')) {
      wildcards++;
    }
  }
  if (wildcards > GLOB_LIMITS.wildcards) {
    throw overLimit(pattern, 'wildcards (runs of * and each ?)', wildcards, GLOB_LIMITS.wildcards);
  }
  if (classes > GLOB_LIMITS.classes) throw overLimit(pattern, 'character classes', classes, GLOB_LIMITS.classes);
}
