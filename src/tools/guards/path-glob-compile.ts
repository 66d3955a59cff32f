import { codePointsOf, compileWildcard, matchWildcard, type Wildcard } from '../../core/wildcard.ts';
import { expandBraces, parseBraces } from './path-glob-braces.ts';
import { GLOB_LIMITS, overLimit } from './path-glob-limits.ts';
import { namesTheDot, tokenizeSegment } from './path-glob-tokens.ts';

type NameAlternative = { readonly wildcard: Wildcard; readonly dotOk: boolean };
type GlobSegment = { readonly kind: 'globstar' } | { readonly kind: 'name'; readonly alternatives: NameAlternative[] };

/**
 * A glob compiled once per call into a small automaton over path segments. A state is the set of pattern
 * segments the names seen so far can lead to; each directory entry moves its parent's state by one name.
 */
export type CompiledGlob = { readonly segments: readonly GlobSegment[] };

/** The pattern positions reachable after some names, sorted; the segment count means "matched". */
export type GlobState = readonly number[];

const ANY_NAME: GlobSegment = {
  kind: 'name',
  alternatives: [{ wildcard: compileWildcard([{ kind: 'star' }]), dotOk: false }],
};

/**
 * Compiles the segments of a glob (below the root, already checked as a path) within {@link GLOB_LIMITS}.
 * `**` alone in a segment matches any number of names that do not start with `.`; at the end of the pattern it
 * needs at least one (`docs/**` lists what is below `docs`, not `docs`). Consecutive `**` are one.
 *
 * @throws AgencyError `path_invalid` when the braces exceed a limit or a segment cannot be parsed.
 */
export function compileGlob(pattern: string, segments: readonly string[]): CompiledGlob {
  const braces = segments.map((segment) => parseBraces(pattern, segment));
  const groups = braces.reduce((sum, segment) => sum + segment.groups, 0);
  if (groups > GLOB_LIMITS.braceGroups) throw overLimit(pattern, 'brace groups', groups, GLOB_LIMITS.braceGroups);
  const count = braces.reduce((product, segment) => product * segment.count, 1);
  if (count > GLOB_LIMITS.alternatives) {
    throw overLimit(pattern, 'alternatives after brace expansion', count, GLOB_LIMITS.alternatives);
  }
  const expanded = braces.map(expandBraces);
  const chars = expanded.reduce((sum, list) => sum + list.reduce((total, text) => total + text.length, 0), 0);
  if (chars > GLOB_LIMITS.expandedChars) {
    throw overLimit(pattern, 'characters after brace expansion', chars, GLOB_LIMITS.expandedChars);
  }
  const compiled: GlobSegment[] = [];
  for (const alternatives of expanded) {
    if (alternatives.length === 1 && alternatives[0] === '**') {
      if (compiled.at(-1)?.kind !== 'globstar') compiled.push({ kind: 'globstar' });
      continue;
    }
    compiled.push({ kind: 'name', alternatives: alternatives.map((text) => compileName(pattern, text)) });
  }
  if (compiled.at(-1)?.kind === 'globstar') compiled.splice(-1, 0, ANY_NAME);
  return { segments: compiled };
}

function compileName(pattern: string, text: string): NameAlternative {
  const tokens = tokenizeSegment(pattern, text);
  return { wildcard: compileWildcard(tokens), dotOk: namesTheDot(tokens) };
}

/** The state before any name: the first segment, and what a leading `**` can skip to. */
export function initialState(glob: CompiledGlob): GlobState {
  return closure(glob, [0]);
}

/**
 * The state after one more name. Each live position costs at most one match per alternative, each O(name ×
 * alternative) (see `matchWildcard`), so an entry costs O(name length × expanded pattern length) at worst.
 */
export function nextState(glob: CompiledGlob, state: GlobState, name: string): GlobState {
  const { segments } = glob;
  const chars = codePointsOf(name);
  const dot = name.startsWith('.');
  const next: number[] = [];
  for (const position of state) {
    const segment = segments[position];
    if (segment === undefined) continue;
    if (segment.kind === 'globstar') {
      if (!dot) next.push(position);
    } else if (segment.alternatives.some((alt) => (alt.dotOk || !dot) && matchWildcard(alt.wildcard, chars))) {
      next.push(position + 1);
    }
  }
  return closure(glob, next);
}

/** True when the names so far match the whole pattern. */
export function isMatch(glob: CompiledGlob, state: GlobState): boolean {
  return state.includes(glob.segments.length);
}

/** True when some longer path could still match, so a directory is worth opening. */
export function canGoDeeper(glob: CompiledGlob, state: GlobState): boolean {
  return state.some((position) => position < glob.segments.length);
}

// Adds the positions after each `**`, which may match no names, and sorts without duplicates.
function closure(glob: CompiledGlob, positions: readonly number[]): GlobState {
  const reached = new Set<number>();
  for (let position of positions) {
    reached.add(position);
    while (glob.segments[position]?.kind === 'globstar') reached.add(++position);
  }
  return [...reached].sort((a, b) => a - b);
}
