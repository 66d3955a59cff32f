import type { Stats } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from '../../core/errno.ts';
import { AgencyError } from '../../core/errors.ts';
import { type ParsedPath, parseUserPath } from './path-lexical.ts';
import { followLink } from './path-link.ts';
import { fsRefusal, hardLinkRefusal, outsideScope, refusal } from './path-refusal.ts';
import { findRoot, type PathRoot, resolveScope, type Scope } from './path-roots.ts';
import { checkWritable } from './path-writable.ts';

/** What the caller means to do: `read` an existing entry, `write` an existing file in place, or `create` a file. */
export type ScopeMode = 'read' | 'write' | 'create';

/** A model-supplied path resolved to a real path inside a root. */
export type ResolvedPath = {
  /** The real absolute path. For `create` it may not exist yet; its parent does. */
  readonly path: string;
  /** The real path of the root that contains it. */
  readonly root: string;
  /** That root's label, if it has one. */
  readonly label: string | undefined;
  /** The path relative to that root, with `/` separators; `''` for the root itself. */
  readonly relative: string;
  /** What the path named when it was resolved; `missing` only in `create` mode. */
  readonly kind: 'file' | 'directory' | 'missing';
};

const MODES: readonly ScopeMode[] = ['read', 'write', 'create'];

/**
 * Resolves a model-supplied path to a real path inside one of the harness's roots, or throws an {@link AgencyError}
 * (`path_invalid`, `path_outside_scope`, `path_symlink_escape`, `path_not_found`). The path is relative to the first
 * root, unless its first segment is a root's label. Symlinks are followed only while they stay inside the roots;
 * in `write` and `create` mode the final component may not be a symlink at all, and the real path must be writable
 * (`path_read_only` when a root's `writable` list leaves it out).
 *
 * This checks the path; it does not open it. Use {@link openInScope} to act on the file without a race.
 *
 * @example
 * const { path } = await resolveInScope(['/runs/t1/task', '/runs/t1/progress'], 'progress/notes.md', 'read');
 */
export async function resolveInScope(
  roots: readonly PathRoot[],
  userPath: string,
  mode: ScopeMode,
): Promise<ResolvedPath> {
  return resolveWithScope(await resolveScope(roots), userPath, mode);
}

/** {@link resolveInScope} with roots already resolved. */
export async function resolveWithScope(scope: Scope, userPath: string, mode: ScopeMode): Promise<ResolvedPath> {
  if (!MODES.includes(mode)) {
    throw new AgencyError('invalid_argument', `mode ${JSON.stringify(mode)} must be read, write or create`);
  }
  return resolveParsed(scope, userPath, mode, parseUserPath(scope, userPath));
}

/** {@link resolveInScope} for a path already checked by `parseUserPath`. */
export async function resolveParsed(
  scope: Scope,
  userPath: string,
  mode: ScopeMode,
  parsed: ParsedPath,
): Promise<ResolvedPath> {
  if (mode !== 'read' && (parsed.segments.length === 0 || parsed.trailingSlash)) {
    throw refusal('path_invalid', userPath, 'names a directory', `name a file to ${mode}, e.g. "notes.md"`);
  }
  const walked = await walk(scope, userPath, mode, parsed.root.real, parsed.segments);
  const resolved =
    walked.missing.length === 0
      ? await finishExisting(scope, userPath, mode, walked, parsed.trailingSlash)
      : missingTarget(scope, userPath, mode, walked);
  // On the real path the walk arrived at, not on the text: `artifacts/p/spec.json` with `p -> ..` is `spec.json`.
  if (mode !== 'read') checkWritable(scope, userPath, resolved.path);
  return resolved;
}

function missingTarget(scope: Scope, userPath: string, mode: ScopeMode, walked: Walked): ResolvedPath {
  if (mode !== 'create') {
    throw refusal('path_not_found', userPath, 'does not exist', 'check the name, e.g. with file_glob');
  }
  if (walked.missing.length > 1) {
    throw refusal(
      'path_not_found',
      userPath,
      `has a missing parent directory "${walked.missing[0]}"`,
      'write into an existing directory',
    );
  }
  return describe(scope, userPath, path.join(walked.real, walked.missing[0]!), 'missing');
}

// `stats` is the final entry's lstat when it was not a symlink, so it need not be read twice.
type Walked = { real: string; missing: readonly string[]; stats?: Stats | undefined };

// Walks the segments one at a time from the real root, following only symlinks whose whole chain stays in scope.
async function walk(
  scope: Scope,
  userPath: string,
  mode: ScopeMode,
  rootReal: string,
  segments: readonly string[],
): Promise<Walked> {
  let current = rootReal;
  let last: Stats | undefined;
  for (let index = 0; index < segments.length; index++) {
    const next = path.join(current, segments[index]!);
    const stats = await lstatInScope(userPath, next);
    if (stats === undefined) return { real: current, missing: segments.slice(index) };
    const shown = segments.slice(0, index + 1).join('/');
    const isLast = index === segments.length - 1;
    if (stats.isSymbolicLink()) {
      const link = await followLink(scope, userPath, next, shown);
      if (isLast && mode !== 'read') {
        throw refusal(
          'path_invalid',
          userPath,
          'is a symlink, and the guard never writes through one',
          'write to the real file instead',
        );
      }
      if (!link.exists) {
        throw refusal(
          'path_not_found',
          userPath,
          `goes through the dangling symlink "${shown}"`,
          'use an existing file',
        );
      }
      current = link.target;
      last = undefined;
    } else {
      current = next;
      last = stats;
    }
  }
  return { real: current, missing: [], stats: last };
}

async function lstatInScope(userPath: string, target: string): Promise<Stats | undefined> {
  try {
    return await lstat(target);
  } catch (cause) {
    const code = errnoCode(cause);
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR') {
      throw refusal('path_not_found', userPath, 'goes through a file as if it were a directory', 'check the path', {
        cause,
      });
    }
    throw fsRefusal(userPath, cause);
  }
}

async function finishExisting(
  scope: Scope,
  userPath: string,
  mode: ScopeMode,
  { real, stats: known }: Walked,
  trailingSlash: boolean,
): Promise<ResolvedPath> {
  const stats =
    known ??
    (await stat(real).catch((cause: unknown) => {
      throw fsRefusal(userPath, cause);
    }));
  if (stats.isDirectory()) {
    if (mode !== 'read') throw refusal('path_invalid', userPath, 'is a directory', `name a file to ${mode}`);
  } else if (!stats.isFile()) {
    throw refusal('path_invalid', userPath, 'is not a regular file (a FIFO, socket or device)', 'use a regular file');
  } else if (trailingSlash) {
    throw refusal('path_not_found', userPath, 'ends in "/" but names a file', 'drop the trailing "/"');
  } else if (mode === 'write' && stats.nlink > 1) {
    throw hardLinkRefusal(userPath, stats.nlink);
  }
  return describe(scope, userPath, real, stats.isDirectory() ? 'directory' : 'file');
}

function describe(scope: Scope, userPath: string, real: string, kind: ResolvedPath['kind']): ResolvedPath {
  const root = findRoot(scope, real);
  if (root === undefined) throw outsideScope(scope, userPath);
  const relative = path.relative(root.real, real).split(path.sep).join('/');
  return { path: real, root: root.real, label: root.label, relative, kind };
}
