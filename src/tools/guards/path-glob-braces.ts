import { classEnd } from './path-glob-class.ts';
import { GLOB_LIMITS, overLimit } from './path-glob-limits.ts';
import { refusal } from './path-refusal.ts';

type BraceNode =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'group'; readonly alternatives: readonly (readonly BraceNode[])[] }
  | { readonly kind: 'range'; readonly from: number; readonly to: number; readonly width: number; letters: boolean };

/** One segment of a glob with its braces parsed but not yet expanded. */
export type BraceSegment = {
  readonly nodes: readonly BraceNode[];
  /** Brace groups written in the segment (`{a}` alone is literal and not one). */
  readonly groups: number;
  /** How many patterns the segment expands to. */
  readonly count: number;
};

type Cursor = { readonly pattern: string; readonly text: string; index: number; groups: number };

/**
 * Parses the braces of one segment: `{a,b}` alternatives (nested up to {@link GLOB_LIMITS}.braceDepth), `{1..5}`
 * and `{a..e}` ranges (`{01..10}` pads). A group without a comma or range, like `{a}`, is literal; so is a brace
 * inside a class (`[{]`). Nothing is expanded yet, so a pattern that would expand too far costs nothing to refuse.
 *
 * @throws AgencyError `path_invalid` for an unbalanced brace (which includes one that spans a `/`) or braces
 * nested too deep.
 */
export function parseBraces(pattern: string, text: string): BraceSegment {
  const cursor: Cursor = { pattern, text, index: 0, groups: 0 };
  const nodes = parseSequence(cursor, 0);
  return { nodes, groups: cursor.groups, count: sequenceCount(nodes) };
}

/** Every pattern a segment expands to, in the order written. Call only once its count is known to be small. */
export function expandBraces(segment: BraceSegment): string[] {
  return expandSequence(segment.nodes);
}

function parseSequence(cursor: Cursor, depth: number): BraceNode[] {
  const { text } = cursor;
  const nodes: BraceNode[] = [];
  let literal = '';
  while (cursor.index < text.length) {
    const char = text[cursor.index]!;
    const end = char === '[' ? classEnd(text, cursor.index) : -1;
    if (end !== -1) {
      literal += text.slice(cursor.index, end + 1);
      cursor.index = end + 1;
      continue;
    }
    if (char === '{') {
      if (literal !== '') nodes.push({ kind: 'text', text: literal });
      literal = '';
      nodes.push(parseGroup(cursor, depth + 1));
      continue;
    }
    if (depth > 0 && (char === ',' || char === '}')) break;
    if (char === '}') throw unbalanced(cursor.pattern);
    literal += char;
    cursor.index++;
  }
  if (literal !== '') nodes.push({ kind: 'text', text: literal });
  return nodes;
}

function parseGroup(cursor: Cursor, depth: number): BraceNode {
  if (depth > GLOB_LIMITS.braceDepth) {
    throw overLimit(cursor.pattern, 'levels of nested braces', depth, GLOB_LIMITS.braceDepth);
  }
  const open = cursor.index++;
  const alternatives = [parseSequence(cursor, depth)];
  while (cursor.text[cursor.index] === ',') {
    cursor.index++;
    alternatives.push(parseSequence(cursor, depth));
  }
  if (cursor.text[cursor.index] !== '}') throw unbalanced(cursor.pattern);
  cursor.index++;
  const range = alternatives.length === 1 ? parseRange(cursor.text.slice(open + 1, cursor.index - 1)) : undefined;
  if (alternatives.length > 1 || range !== undefined) cursor.groups++;
  if (range !== undefined) return range;
  if (alternatives.length > 1) return { kind: 'group', alternatives };
  return {
    kind: 'group',
    alternatives: [[{ kind: 'text', text: '{' }, ...alternatives[0]!, { kind: 'text', text: '}' }]],
  };
}

function parseRange(body: string): BraceNode | undefined {
  const numbers = /^(-?\d+)\.\.(-?\d+)$/.exec(body);
  if (numbers !== null) {
    const [, from, to] = numbers as unknown as [string, string, string];
    const padded = /^-?0\d/.test(from) || /^-?0\d/.test(to);
    const width = padded ? Math.max(from.length, to.length) : 0;
    return { kind: 'range', from: Number(from), to: Number(to), width, letters: false };
  }
  const letters = /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(body);
  if (letters === null) return undefined;
  return { kind: 'range', from: letters[1]!.charCodeAt(0), to: letters[2]!.charCodeAt(0), width: 0, letters: true };
}

function unbalanced(pattern: string) {
  return refusal(
    'path_invalid',
    pattern,
    'has an unbalanced brace (a brace group must close within one path segment)',
    'write {a,b} inside one segment, or [{] and [}] for literal braces',
  );
}

function sequenceCount(nodes: readonly BraceNode[]): number {
  return nodes.reduce((product, node) => product * nodeCount(node), 1);
}

function nodeCount(node: BraceNode): number {
  if (node.kind === 'text') return 1;
  if (node.kind === 'range') return Math.abs(node.to - node.from) + 1;
  return node.alternatives.reduce((sum, alternative) => sum + sequenceCount(alternative), 0);
}

function expandSequence(nodes: readonly BraceNode[]): string[] {
  let results = [''];
  for (const node of nodes) {
    const parts = expandNode(node);
    results = results.flatMap((prefix) => parts.map((part) => prefix + part));
  }
  return results;
}

function expandNode(node: BraceNode): string[] {
  if (node.kind === 'text') return [node.text];
  if (node.kind === 'group') return node.alternatives.flatMap(expandSequence);
  const step = node.to >= node.from ? 1 : -1;
  const values: string[] = [];
  for (let value = node.from; value !== node.to + step; value += step) {
    if (node.letters) values.push(String.fromCharCode(value));
    else
      values.push(`${value < 0 ? '-' : ''}${String(Math.abs(value)).padStart(node.width - (value < 0 ? 1 : 0), '0')}`);
  }
  return values;
}
