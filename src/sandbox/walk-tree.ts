import { type Dir, lstatSync, opendirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { isWithin } from './sandbox-paths.ts';

/** How far {@link walkTree} got. */
export type TreeWalk = {
  /** Entries looked at. */
  entries: number;
  /** True when the walk stopped at `maxEntries` or met a directory it could not read: some entries went unseen. */
  incomplete: boolean;
};

// Entries handled between yields to the event loop, so a large tree does not stall it.
const BATCH = 1000;

/**
 * Calls `visit` with the `lstat` of every entry under `paths` (the paths themselves included, a path inside another
 * walked once), never following a symlink: links are not even visited. It stops after `maxEntries` entries, and
 * yields to the event loop every 1,000.
 */
export async function walkTree(
  paths: readonly string[],
  maxEntries: number,
  visit: (path: string, stat: Stats) => void,
): Promise<TreeWalk> {
  const walk: TreeWalk = { entries: 0, incomplete: false };
  const roots = paths.filter(
    (path, i) => !paths.some((other, j) => j !== i && isWithin(path, other) && path !== other),
  );
  const pending = [...new Set(roots)];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    if (walk.entries >= maxEntries) {
      walk.incomplete = true;
      break;
    }
    walk.entries++;
    const stat = lstatOrUndefined(path, walk);
    if (stat !== undefined) visit(path, stat);
    if (stat?.isDirectory()) await listInto(path, pending, walk, maxEntries);
    if (walk.entries % BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return walk;
}

async function listInto(dir: string, pending: string[], walk: TreeWalk, maxEntries: number) {
  let handle: Dir;
  try {
    handle = opendirSync(dir);
  } catch {
    walk.incomplete = true; // too deep for a path, or gone
    return;
  }
  try {
    for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
      if (entry.isSymbolicLink()) continue; // never followed
      if (pending.length + walk.entries >= maxEntries) {
        walk.incomplete = true;
        return;
      }
      pending.push(join(dir, entry.name));
      if (pending.length % BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    handle.closeSync();
  }
}

function lstatOrUndefined(path: string, walk: TreeWalk): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== 'ENOENT') walk.incomplete = true;
    return undefined;
  }
}
