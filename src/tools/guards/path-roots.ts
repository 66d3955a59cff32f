import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { AgencyError } from '../../core/errors.ts';

/**
 * A directory tools may touch, decided by the harness and never by the model. A plain string is an absolute path
 * whose label is its last segment; the object form sets the label explicitly, and may name the only parts of the
 * root that writes may reach.
 *
 * @example
 * const roots: PathRoot[] = [
 *   '/runs/t1/task',
 *   { label: 'progress', path: '/runs/t1/progress', writable: ['artifacts', 'notes.md'] },
 * ];
 */
export type PathRoot =
  | string
  | {
      readonly label: string;
      readonly path: string;
      /**
       * The only paths below this root that `write` and `create` may reach, relative to the root: a file, or a
       * directory and everything below it. Everything else in the root is read-only, whatever path names it: the
       * check runs on the resolved real path and again on the kernel's path of every descriptor opened to write, so
       * neither a symlink nor a spelling of the path reaches a read-only file. Reading is not limited.
       * @default every path in the root is writable
       */
      readonly writable?: readonly string[];
    };

/**
 * A root after validation: the label a model uses for it, the path the harness gave, its real path, and the paths
 * below it that writes may reach (`undefined`: all of them).
 */
export type ScopeRoot = {
  readonly label: string | undefined;
  readonly given: string;
  readonly real: string;
  readonly writable: readonly string[] | undefined;
};

/** Roots resolved once for one guard call, with the text used in refusal messages. */
export type Scope = { readonly roots: readonly ScopeRoot[]; readonly display: string };

/**
 * True when `target` is `root` or lies below it. Separator-aware: `/srv/root-evil` is not inside `/srv/root`.
 * Both paths must already be absolute and real.
 */
export function isInsideRoot(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel));
}

/** The first root that contains the real path `target`, if any. */
export function findRoot(scope: Scope, target: string): ScopeRoot | undefined {
  return scope.roots.find((root) => isInsideRoot(root.real, target));
}

/** Validates the harness's roots and resolves each to its real path. Mistakes here are the harness's, not the model's. */
export async function resolveScope(roots: readonly PathRoot[]): Promise<Scope> {
  if (!Array.isArray(roots) || roots.length === 0) {
    throw new AgencyError('invalid_argument', 'roots must be a non-empty list of absolute directories');
  }
  const resolved: ScopeRoot[] = [];
  for (const root of roots) {
    const entry = await resolveRoot(root);
    if (entry.label !== undefined && resolved.some((other) => other.label === entry.label)) {
      throw new AgencyError(
        'invalid_argument',
        `roots: label "${entry.label}" is used twice; give each root its own label`,
      );
    }
    resolved.push(entry);
  }
  return { roots: resolved, display: resolved.map((root) => root.given).join(', ') };
}

async function resolveRoot(root: PathRoot): Promise<ScopeRoot> {
  const given = typeof root === 'string' ? root : root?.path;
  if (typeof given !== 'string' || !path.isAbsolute(given) || given.includes('\0')) {
    throw new AgencyError(
      'invalid_argument',
      `roots: ${JSON.stringify(given)} is not an absolute path; pass absolute directories`,
    );
  }
  const label = typeof root === 'string' ? path.basename(path.resolve(given)) || undefined : root.label;
  if (label !== undefined && !isValidLabel(label)) {
    throw new AgencyError('invalid_argument', `roots: label ${JSON.stringify(label)} must be one plain path segment`);
  }
  let real: string;
  try {
    real = await realpath(given);
  } catch (cause) {
    throw new AgencyError('invalid_argument', `roots: ${given} does not exist; create it before scoping tools to it`, {
      cause,
    });
  }
  if (!(await stat(real)).isDirectory()) {
    throw new AgencyError('invalid_argument', `roots: ${given} is not a directory; roots must be directories`);
  }
  const writable = typeof root === 'string' ? undefined : writableEntries(given, root.writable);
  return { label, given, real, writable };
}

// Each entry is a plain relative path: segments without `.`, `..`, backslashes or NUL, one slash between them; a
// trailing slash is allowed (`artifacts/`).
function writableEntries(given: string, entries: readonly string[] | undefined): readonly string[] | undefined {
  if (entries === undefined) return undefined;
  if (!Array.isArray(entries)) {
    throw new AgencyError('invalid_argument', `roots: ${given}: writable must be a list of relative paths`);
  }
  return entries.map((entry: unknown) => {
    const segments = typeof entry === 'string' ? entry.replace(/\/+$/, '').split('/') : [''];
    if (segments.some((segment) => !isValidLabel(segment))) {
      throw new AgencyError(
        'invalid_argument',
        `roots: ${given}: writable entry ${JSON.stringify(entry)} must be a relative path without "." or ".."`,
      );
    }
    return segments.join('/');
  });
}

function isValidLabel(label: string): boolean {
  return (
    typeof label === 'string' &&
    label !== '' &&
    label !== '.' &&
    label !== '..' &&
    !/[/\\\0]/.test(label) &&
    label.length <= 255
  );
}
