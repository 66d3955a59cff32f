import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import path from 'node:path';
import { errnoCode } from '../../core/errno.ts';
import { AgencyError } from '../../core/errors.ts';
import { openPinnedDir } from './path-fd.ts';
import {
  canGoDeeper,
  type CompiledGlob,
  compileGlob,
  type GlobState,
  initialState,
  isMatch,
  nextState,
} from './path-glob-compile.ts';
import { checkGlobText } from './path-glob-limits.ts';
import { hasGlobMagic, type ParsedPath, parseUserPath } from './path-lexical.ts';
import { resolveParsed } from './path-resolve.ts';
import { type PathRoot, resolveScope, type Scope } from './path-roots.ts';

/** Options for {@link globInScope}. */
export type GlobInScopeOptions = {
  /** Stop after this many matches and set `truncated`. @default 1000 */
  maxResults?: number;
  /** Stop after looking at this many directory entries and set `truncated`. @default 100000 */
  maxEntries?: number;
  /**
   * Stops the walk at the next entry. The call then rejects with the signal's reason when it is an AgencyError
   * (a tool's timeout aborts with `tool_timeout`), or else with an AgencyError `aborted`.
   */
  signal?: AbortSignal;
};

/** What {@link globInScope} found. */
export type GlobInScopeResult = {
  /** Matches in walk order (sorted by name), written as the model would pass them back; directories end in `/`. */
  readonly paths: readonly string[];
  /** A limit stopped the walk early. */
  readonly truncated: boolean;
  /** Directory entries looked at. */
  readonly entries: number;
};

const MAX_DEPTH = 64;
// The walk gives the event loop a turn after this long without one, so timers (a tool's timeout) and other runs'
// I/O keep going however large a directory is.
const SLICE_MS = 10;

/**
 * Lists entries inside the roots that match a glob pattern: `*`, `**`, `?`, `[abc]`, `[!a-z]`, `{a,b}`, `{1..3}`.
 * The pattern follows the same rules as a path: relative to the first root or starting with a root's label, and
 * never absolute or containing `..`. It must stay within `GLOB_LIMITS`. It is compiled once, and each entry is
 * matched without backtracking, in at most (name length × pattern length) steps. The walk opens each directory by
 * descriptor and never descends into a symlink; a symlink is listed only when its target is inside the roots.
 * Dotfiles match only patterns that name the dot. The walk yields to the event loop every few milliseconds and
 * stops when `signal` aborts.
 *
 * @throws AgencyError `path_invalid` for a pattern that breaks the path rules or a limit, naming the limit.
 * @example
 * const { paths } = await globInScope(['/runs/t1/task', '/runs/t1/progress'], 'progress/**\/*.md');
 */
export async function globInScope(
  roots: readonly PathRoot[],
  pattern: string,
  { maxResults = 1000, maxEntries = 100_000, signal }: GlobInScopeOptions = {},
): Promise<GlobInScopeResult> {
  for (const [name, value] of [
    ['maxResults', maxResults],
    ['maxEntries', maxEntries],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new AgencyError('invalid_argument', `${name} ${String(value)} must be a positive integer`);
    }
  }
  throwIfAborted(signal);
  const scope = await resolveScope(roots);
  const parsed = parseUserPath(scope, pattern, { allowDotDot: false });
  const prefixLength = parsed.segments.findIndex(hasGlobMagic);
  const glob = prefixLength === -1 ? undefined : compileChecked(pattern, parsed.segments.slice(prefixLength));
  const walk: Walk = {
    scope,
    pattern,
    parsed,
    glob,
    maxResults,
    maxEntries,
    signal,
    seen: 0,
    paths: [],
    truncated: false,
    slice: performance.now(),
  };
  if (glob === undefined) {
    await addIfInScope(walk, parsed.segments);
    return { paths: walk.paths, truncated: false, entries: 0 };
  }
  const prefix = parsed.segments.slice(0, prefixLength);
  const start = await resolveQuietly(walk, prefix);
  if (start?.isDirectory === true) await walkDir(walk, start.real, prefix, initialState(glob));
  return { paths: walk.paths, truncated: walk.truncated, entries: walk.seen };
}

function compileChecked(pattern: string, segments: readonly string[]): CompiledGlob {
  checkGlobText(pattern);
  return compileGlob(pattern, segments);
}

type Walk = {
  readonly scope: Scope;
  readonly pattern: string;
  readonly parsed: ParsedPath;
  readonly glob: CompiledGlob | undefined;
  readonly maxResults: number;
  readonly maxEntries: number;
  readonly signal: AbortSignal | undefined;
  seen: number;
  paths: string[];
  truncated: boolean;
  /** When the walk last gave the event loop a turn. */
  slice: number;
};

async function walkDir(walk: Walk, real: string, relParts: readonly string[], state: GlobState): Promise<void> {
  const glob = walk.glob!;
  const entries = await readSorted(walk, real);
  for (const entry of entries) {
    if (walk.truncated) return;
    if (walk.seen >= walk.maxEntries) {
      walk.truncated = true;
      return;
    }
    walk.seen++;
    if (performance.now() - walk.slice >= SLICE_MS) await yieldTurn(walk);
    const parts = [...relParts, entry.name];
    const next = nextState(glob, state, entry.name);
    const matches = isMatch(glob, next);
    if (entry.isSymbolicLink()) {
      if (matches) await addIfInScope(walk, parts);
    } else if (entry.isDirectory()) {
      if (matches) add(walk, parts, true);
      if (parts.length < MAX_DEPTH && canGoDeeper(glob, next)) {
        await walkDir(walk, path.join(real, entry.name), parts, next);
      }
    } else if (matches) {
      add(walk, parts, false);
    }
  }
}

async function readSorted(walk: Walk, real: string): Promise<Dirent[]> {
  throwIfAborted(walk.signal);
  let entries: Dirent[];
  try {
    const dir = await openPinnedDir(walk.scope, walk.pattern, real);
    try {
      entries = await readdir(dir.entry('.'), { withFileTypes: true });
    } finally {
      await dir.handle.close();
    }
  } catch (error) {
    // A directory that vanished, became unreadable or was swapped for a symlink mid-walk is skipped, never followed.
    if (AgencyError.isInstance(error) || errnoCode(error) !== undefined) return [];
    throw error;
  }
  throwIfAborted(walk.signal);
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function yieldTurn(walk: Walk): Promise<void> {
  await nextTurn();
  walk.slice = performance.now();
  throwIfAborted(walk.signal);
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted !== true) return;
  const reason: unknown = signal.reason;
  if (AgencyError.isInstance(reason)) throw reason;
  throw new AgencyError('aborted', 'The file glob was cancelled before it finished.', { cause: reason });
}

async function addIfInScope(walk: Walk, parts: readonly string[]): Promise<void> {
  const resolved = await resolveQuietly(walk, parts);
  if (resolved !== undefined) add(walk, parts, resolved.isDirectory);
}

async function resolveQuietly(
  walk: Walk,
  parts: readonly string[],
): Promise<{ real: string; isDirectory: boolean } | undefined> {
  const parsed: ParsedPath = { ...walk.parsed, segments: parts, trailingSlash: false };
  try {
    const resolved = await resolveParsed(walk.scope, walk.pattern, 'read', parsed);
    return { real: resolved.path, isDirectory: resolved.kind === 'directory' };
  } catch (error) {
    if (AgencyError.isInstance(error)) return undefined;
    throw error;
  }
}

function add(walk: Walk, parts: readonly string[], isDirectory: boolean): void {
  if (walk.paths.length >= walk.maxResults) {
    walk.truncated = true;
    return;
  }
  const shown = [...(walk.parsed.labelled ? [walk.parsed.root.label] : []), ...parts].join('/') || '.';
  walk.paths.push(isDirectory ? `${shown}/` : shown);
}
