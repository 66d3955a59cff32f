import path from 'node:path';
import { outsideScope, refusal } from './path-refusal.ts';
import type { Scope, ScopeRoot } from './path-roots.ts';

/** The longest model-supplied path accepted, in UTF-8 bytes (Linux PATH_MAX). */
export const MAX_PATH_BYTES = 4096;
/** The longest single segment accepted, in UTF-8 bytes (Linux NAME_MAX). */
export const MAX_SEGMENT_BYTES = 255;

/** A model-supplied path checked lexically: the root it addresses and its normalized segments below that root. */
export type ParsedPath = {
  readonly root: ScopeRoot;
  /** Normalized segments: no empty, `.` or `..` entries. Empty when the path names the root itself. */
  readonly segments: readonly string[];
  /** The first segment was the root's label. */
  readonly labelled: boolean;
  /** The path ended in `/`. */
  readonly trailingSlash: boolean;
};

// Bidi overrides and isolates, zero-width characters and the BOM: they make a path read differently from what it is.
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
// Overlong UTF-8 encodings of '.', '/' and '\' (%c0%ae and friends) that old decoders turned into separators.
const OVERLONG = /%c[01]%[89ab][0-9a-f]|%e0%[89][0-9a-f]%[89ab][0-9a-f]|%f0%8[0-9a-f]%/i;
const DOTS_AND_SPACES = /^[. ]+$/;
const GLOB_MAGIC = /[*?[\]{}]/;

/**
 * Checks a model-supplied path without touching the disk and splits it into segments below the root it addresses.
 * A first segment equal to a root's label addresses that root; any other path is relative to the first root.
 * `..` may not climb above the addressed root, even into another root.
 */
export function parseUserPath(scope: Scope, userPath: unknown, { allowDotDot = true } = {}): ParsedPath {
  if (typeof userPath !== 'string') {
    throw refusal('path_invalid', String(userPath), 'is not a string', 'pass the path as a string');
  }
  checkWhole(userPath);
  const raw = userPath.split('/').filter((segment) => segment !== '' && segment !== '.');
  const labelled = raw.length > 0 ? scope.roots.find((root) => root.label === raw[0]) : undefined;
  const root = labelled ?? scope.roots[0]!;
  const segments: string[] = [];
  for (const segment of labelled === undefined ? raw : raw.slice(1)) {
    if (segment === '..') {
      if (!allowDotDot) {
        throw refusal('path_invalid', userPath, 'contains a ".." segment', 'patterns must stay below a root');
      }
      if (segments.pop() === undefined) throw outsideScope(scope, userPath);
      continue;
    }
    checkSegment(userPath, segment);
    segments.push(segment);
  }
  return { root, segments, labelled: labelled !== undefined, trailingSlash: userPath.endsWith('/') };
}

/** True when a segment contains glob syntax. */
export function hasGlobMagic(segment: string): boolean {
  return GLOB_MAGIC.test(segment);
}

function checkWhole(userPath: string): void {
  const invalid = (problem: string, fix: string) => refusal('path_invalid', userPath, problem, fix);
  if (userPath === '') throw invalid('is empty', 'name a file relative to a root, e.g. "notes.md"');
  const bytes = Buffer.byteLength(userPath, 'utf8');
  if (bytes > MAX_PATH_BYTES) {
    throw invalid(`is ${bytes} bytes long, over the ${MAX_PATH_BYTES}-byte limit`, 'use a shorter path');
  }
  if (!userPath.isWellFormed()) throw invalid('contains an unpaired UTF-16 surrogate', 'send valid Unicode text');
  if (userPath.includes('\0')) throw invalid('contains a NUL byte', 'remove it; file names cannot contain NUL');
  const control = firstControl(userPath);
  if (control !== undefined) throw invalid(`contains the control character ${codePoint(control)}`, 'remove it');
  const invisible = INVISIBLE.exec(userPath)?.[0];
  if (invisible !== undefined) {
    throw invalid(`contains the invisible or bidi character ${codePoint(invisible)}`, 'remove it');
  }
  if (path.posix.isAbsolute(userPath) || path.win32.isAbsolute(userPath)) {
    throw invalid('is absolute', 'use a path relative to a root, e.g. "notes.md"');
  }
  if (/^[A-Za-z]:/.test(userPath)) {
    throw invalid('starts with a drive letter', 'use a path relative to a root, e.g. "notes.md"');
  }
  if (userPath.includes('\\')) throw invalid('contains a backslash', 'use "/" as the separator');
  if (userPath.startsWith('~')) {
    throw invalid('starts with "~", which is not expanded here', 'use a path relative to a root');
  }
}

function checkSegment(userPath: string, segment: string): void {
  const invalid = (problem: string, fix: string) => refusal('path_invalid', userPath, problem, fix);
  const bytes = Buffer.byteLength(segment, 'utf8');
  if (bytes > MAX_SEGMENT_BYTES) {
    throw invalid(`has a ${bytes}-byte segment, over the ${MAX_SEGMENT_BYTES}-byte limit`, 'use shorter names');
  }
  if (DOTS_AND_SPACES.test(segment)) {
    throw invalid(`has the segment ${JSON.stringify(segment)} made only of dots and spaces`, 'use a real name');
  }
  if (OVERLONG.test(segment)) {
    throw invalid('contains an overlong UTF-8 percent-encoding', 'use plain characters instead of %-escapes');
  }
  for (const variant of lookalikes(segment)) {
    if (variant.includes('/') || variant.includes('\\') || firstControl(variant) !== undefined) {
      throw invalid(
        `has the segment ${JSON.stringify(segment)}, which decodes to a separator or control character`,
        'use plain characters',
      );
    }
    if (DOTS_AND_SPACES.test(variant)) {
      throw invalid(
        `has the segment ${JSON.stringify(segment)}, which decodes to ${JSON.stringify(variant)}`,
        'use plain characters',
      );
    }
  }
}

// What a segment could turn into if some layer percent-decodes it (up to three times) or applies Unicode NFKC
// (fullwidth `．．` and `‥` become `..`). The disk never sees these forms; they are refused so no later layer can.
function lookalikes(segment: string): string[] {
  const variants = new Set<string>([segment.normalize('NFKC')]);
  let current = segment;
  for (let round = 0; round < 3; round++) {
    const next = current.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    if (next === current) break;
    current = next;
    variants.add(current);
    variants.add(current.normalize('NFKC'));
  }
  variants.delete(segment);
  return [...variants];
}

// C0 and C1 controls and DEL; NUL is reported on its own before this runs.
function firstControl(text: string): string | undefined {
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code <= 0x1f || (code >= 0x7f && code <= 0x9f)) return char;
  }
  return undefined;
}

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
