import type { Stats } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from '../../core/errno.ts';
import { fsRefusal, refusal, symlinkEscape } from './path-refusal.ts';
import { findRoot, isInsideRoot, type Scope } from './path-roots.ts';

/** Where a symlink leads: a real path inside a root; `exists` is false for a dangling link. */
export type LinkTarget = { readonly target: string; readonly exists: boolean };

// Linux's MAXSYMLINKS: a longer chain is treated as a loop, as the kernel would.
const MAX_LINKS = 40;

/**
 * Resolves the symlink `link` (whose parent directory is a real path) the way the kernel would, but one component at
 * a time, and refuses it unless every place the chain passes through is inside a root or is a directory above a
 * root (an absolute target starts at `/`). A component outside is refused before it is looked at, so whether and how
 * a link is refused never depends on what exists outside the roots: no link can serve as an existence oracle.
 */
export async function followLink(scope: Scope, userPath: string, link: string, shown: string): Promise<LinkTarget> {
  return follow(scope, userPath, link, shown, { links: 0 });
}

async function follow(
  scope: Scope,
  userPath: string,
  link: string,
  shown: string,
  budget: { links: number },
): Promise<LinkTarget> {
  if (++budget.links > MAX_LINKS) {
    throw refusal('path_invalid', userPath, `goes through the symlink loop "${shown}"`, 'use a path without the loop');
  }
  const text = await readlink(link).catch((cause: unknown) => {
    throw fsRefusal(userPath, cause);
  });
  const segments = text.split('/').filter((segment) => segment !== '' && segment !== '.');
  let current = path.isAbsolute(text) ? path.parse(link).root : path.dirname(link);
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index]!;
    // `current` is always a real directory, so its textual parent is its physical parent, as for the kernel.
    if (segment === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, segment);
    if (!reachable(scope, next)) throw symlinkEscape(scope, userPath, shown);
    const rest = segments.slice(index + 1);
    const stats = await lstatOrMissing(userPath, next);
    if (stats === undefined) return dangling(scope, userPath, shown, next, rest);
    let landed: LinkTarget = { target: next, exists: true };
    if (stats.isSymbolicLink()) landed = await follow(scope, userPath, next, shown, budget);
    if (!landed.exists) return dangling(scope, userPath, shown, landed.target, rest);
    const directory = stats.isSymbolicLink() ? await isDirectory(landed.target) : stats.isDirectory();
    // More components after a file: the kernel says ENOTDIR, which is a dangling link here.
    if (rest.length > 0 && !directory) return dangling(scope, userPath, shown, landed.target, rest);
    current = landed.target;
  }
  if (findRoot(scope, current) === undefined) throw symlinkEscape(scope, userPath, shown);
  return { target: current, exists: true };
}

// Inside a root, or a directory above one (`/`, `/runs`, `/runs/t1` for the root `/runs/t1/task`). Directories above
// a root exist and are real directories, so looking at them tells nothing.
function reachable(scope: Scope, target: string): boolean {
  return findRoot(scope, target) !== undefined || scope.roots.some((root) => isInsideRoot(target, root.real));
}

// A dangling link is refused either way; where it would land, worked out from the text alone, picks the refusal.
function dangling(scope: Scope, userPath: string, shown: string, at: string, rest: readonly string[]): LinkTarget {
  const target = path.resolve(at, ...rest);
  if (findRoot(scope, target) === undefined) throw symlinkEscape(scope, userPath, shown);
  return { target, exists: false };
}

async function lstatOrMissing(userPath: string, target: string): Promise<Stats | undefined> {
  try {
    return await lstat(target);
  } catch (cause) {
    const code = errnoCode(cause);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw fsRefusal(userPath, cause);
  }
}

async function isDirectory(target: string): Promise<boolean> {
  return (await lstat(target).catch(() => undefined))?.isDirectory() === true;
}
