import { AgencyError } from '../core/errors.ts';
import { type NamePatterns, nameMatcher } from './glob.ts';
import type { PolicyRule } from './policy-types.ts';

/** Options for {@link writeScope}. */
export type WriteScopeOptions = {
  /** Relative directories (or files) the tools may write, e.g. `['progress']`. */
  paths: readonly string[];
  /** The tools checked. @default every tool with `write` effects */
  tools?: NamePatterns;
  /** Tools never checked, e.g. `['kv', 'sql']`, whose writes go to a store the harness configured, not to a path. */
  except?: NamePatterns;
  /** The argument fields that hold paths (a string or a list of strings). @default ['path'] */
  pathFields?: readonly string[];
  /** What to do with a checked tool call that has none of `pathFields`. @default 'deny' */
  onMissingPath?: 'deny' | 'allow';
  /** @default 'write-scope' */
  id?: string;
};

/**
 * Denies write-tool calls whose path argument falls outside `paths`. Paths are compared lexically after
 * normalization, with a separator after the prefix (`progress` allows `progress/a.md`, not `progress-old/a.md`);
 * absolute paths, `..` escapes and NUL bytes are denied. The path guard in the tools themselves still resolves
 * symlinks; this rule is the policy-level statement of where writes may go.
 *
 * @throws AgencyError `invalid_argument` for a scope that is absolute or escapes with `..`.
 * @example
 * writeScope({ paths: ['progress'] })
 */
export function writeScope({
  paths,
  tools,
  except,
  pathFields = ['path'],
  onMissingPath = 'deny',
  id = 'write-scope',
}: WriteScopeOptions): PolicyRule {
  const scopes = paths.map((path, index) => {
    const normalized = normalizeRelative(path);
    if (normalized === undefined)
      throw new AgencyError(
        'invalid_argument',
        `${id}.paths[${index}] "${path}" must be a relative path inside the root`,
        {
          details: { field: `${id}.paths[${index}]` },
        },
      );
    return normalized;
  });
  const checked = tools === undefined ? undefined : nameMatcher(tools);
  const exempt = except === undefined ? undefined : nameMatcher(except);
  const inScope = (path: string) =>
    scopes.some((scope) => scope === '.' || path === scope || path.startsWith(`${scope}/`));
  return {
    id,
    check(request) {
      if (request.kind !== 'tool-call') return undefined;
      const { name, effects } = request.tool;
      if (checked ? !checked(name) : effects !== 'write') return undefined;
      if (exempt?.(name)) return undefined;
      const targets = pathsOf(request.input, pathFields);
      if (targets.length === 0) {
        return onMissingPath === 'allow'
          ? undefined
          : {
              effect: 'deny',
              reason: `tool "${name}" has no ${pathFields.join('/')} argument to check against its write scope`,
            };
      }
      for (const target of targets) {
        const normalized = normalizeRelative(target);
        if (normalized === undefined || !inScope(normalized))
          return { effect: 'deny', reason: `tool "${name}" may write only under ${scopes.join(', ')}` };
      }
      return undefined;
    },
  };
}

/** The normalized relative form of `path`, or undefined when it is absolute, escapes with `..`, or holds a NUL. */
export function normalizeRelative(path: string): string | undefined {
  if (path.includes('\0') || path === '') return undefined;
  const slashed = path.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed)) return undefined;
  // posix.normalize for a relative path, written out so that policy needs no Node built-in.
  const segments: string[] = [];
  for (const segment of slashed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') segments.push(segment);
    else if (segments.length === 0) return undefined;
    else segments.pop();
  }
  return segments.length === 0 ? '.' : segments.join('/');
}

function pathsOf(input: unknown, fields: readonly string[]): string[] {
  if (typeof input !== 'object' || input === null) return [];
  const paths: string[] = [];
  for (const field of fields) {
    const value = (input as Record<string, unknown>)[field];
    if (typeof value === 'string') paths.push(value);
    else if (Array.isArray(value)) paths.push(...value.map(String));
  }
  return paths;
}
