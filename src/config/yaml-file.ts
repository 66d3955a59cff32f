import { readFile } from 'node:fs/promises';
import { isMap, isNode, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { errnoCode } from '../core/errno.ts';
import { AgencyError, errorMessage } from '../core/errors.ts';

/** One problem in a config file: where it is (1-based line and column), the field, and what to do. */
export type ConfigIssue = { line: number; column: number; field: string; message: string };

/**
 * Reads a YAML config file and validates it with `schema`.
 *
 * @throws AgencyError `invalid_config` whose message names the file, each bad field with its line, and the fix
 *   (`details.issues` has them as {@link ConfigIssue}s); a missing file is explained with `missing`.
 */
export async function readYamlConfig<T>(file: string, schema: z.ZodType<T>, missing: string): Promise<T> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    const code = errnoCode(cause);
    throw new AgencyError(
      'invalid_config',
      code === 'ENOENT' ? `${file}: no such file. ${missing}` : `${file}: cannot be read (${code ?? 'error'})`,
      { details: { file }, cause },
    );
  }
  return parseYamlConfig(text, file, schema);
}

// Alias expansions a config may make: enough for anchors reused by hand, far too few for a bomb.
const MAX_ALIASES = 100;

/** {@link readYamlConfig} on text already read: `file` is only named in messages. */
export function parseYamlConfig<T>(text: string, file: string, schema: z.ZodType<T>): T {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const issues = doc.errors.map((error) => {
      const at = counter.linePos(error.pos[0]);
      return { line: at.line, column: at.col, field: '(yaml)', message: `${error.message}; fix the YAML syntax there` };
    });
    throw invalid(file, issues);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES }) ?? {};
  } catch (error) {
    // An alias bomb (a few lines that expand to millions of nodes) is refused before it is expanded.
    const message = `${errorMessage(error)}; use at most ${MAX_ALIASES} alias expansions, or write the values out`;
    throw invalid(file, [{ line: 1, column: 1, field: '(yaml)', message }]);
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => describeIssue(issue, doc, counter, schema));
  throw invalid(file, issues);
}

function invalid(file: string, issues: ConfigIssue[]): AgencyError {
  const lines = issues.map((issue) => `${file}:${issue.line}:${issue.column}: ${issue.field}: ${issue.message}`);
  return new AgencyError('invalid_config', lines.join('\n'), { details: { file, issues } });
}

function describeIssue(issue: z.core.$ZodIssue, doc: Document, counter: LineCounter, schema: z.ZodType): ConfigIssue {
  const path = issue.path.map((part) => (typeof part === 'number' ? part : String(part)));
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const at = position(doc, counter, [...path, key]);
    const known = keysAt(schema, path);
    return {
      ...at,
      field: fieldName([...path, key]),
      message:
        `unknown field${issue.keys.length > 1 ? `s ${issue.keys.map((k) => `"${k}"`).join(', ')}` : ''}` +
        `${suggestion(key, known)}; remove it, or see docs/fleet.md for the fields`,
    };
  }
  const at = position(doc, counter, path);
  const missing = path.length > 0 && !doc.hasIn(path);
  // A record's bad key: zod's own message is "Invalid key in record"; the key's schema says what a key must be.
  const message = issue.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  return { ...at, field: fieldName(path), message: missing ? `is required: ${message}` : message };
}

// The line of the deepest node of `path` the document has: the key of a map entry, the item of a list, or the
// parent of a field that is missing.
function position(doc: Document, counter: LineCounter, path: Array<string | number>): { line: number; column: number } {
  let node: unknown = doc.contents;
  let offset = 0;
  for (const part of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isNode(item.key) && String(item.key.toJSON()) === String(part));
      if (!pair) break;
      if (isNode(pair.key) && pair.key.range) offset = pair.key.range[0];
      node = pair.value;
    } else if (isSeq(node) && typeof part === 'number') {
      const item = node.items[part];
      if (!isNode(item)) break;
      if (item.range) offset = item.range[0];
      node = item;
    } else break;
  }
  const { line, col } = counter.linePos(offset);
  return { line, column: col };
}

// The fields a schema has at `path`, through optional, default and pipe wrappers, for "did you mean".
function keysAt(schema: z.ZodType, path: ReadonlyArray<string | number>): string[] {
  let def = defOf(schema);
  let i = 0;
  for (;;) {
    const part = path[i];
    if (def.innerType) def = defOf(def.innerType);
    else if (def.type === 'pipe' && def.in) def = defOf(def.in);
    else if (i === path.length) return def.shape ? Object.keys(def.shape) : [];
    else if (def.shape && typeof part === 'string' && def.shape[part]) {
      def = defOf(def.shape[part]);
      i++;
    } else if (def.valueType ?? def.element) {
      def = defOf((def.valueType ?? def.element)!);
      i++;
    } else return [];
  }
}

const defOf = (schema: z.ZodType) => schema._zod.def as ZodDef;

type ZodDef = {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  element?: z.ZodType;
};

function suggestion(key: string, known: readonly string[]): string {
  if (known.length === 0) return '';
  const close = known
    .map((name) => ({ name, distance: distance(key.toLowerCase().replaceAll('-', '_'), name) }))
    .sort((a, b) => a.distance - b.distance)[0]!;
  return close.distance <= Math.max(1, Math.floor(close.name.length / 3))
    ? ` (did you mean "${close.name}"?)`
    : `; the fields here are ${known.join(', ')}`;
}

// Levenshtein distance, on short keys only.
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

function fieldName(path: ReadonlyArray<string | number>): string {
  if (path.length === 0) return '(top level)';
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}
