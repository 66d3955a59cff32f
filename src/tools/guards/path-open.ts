import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { AgencyError } from '../../core/errors.ts';
import { hasProcFd, openPinnedDir, raceRefusal, verifyDescriptor, verifySameFile } from './path-fd.ts';
import { hardLinkRefusal, refusal } from './path-refusal.ts';
import { type ResolvedPath, resolveWithScope, type ScopeMode } from './path-resolve.ts';
import { type PathRoot, resolveScope, type Scope } from './path-roots.ts';
import { checkWritable } from './path-writable.ts';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;
// Flags a caller may pass. Anything else (O_PATH, O_TMPFILE, O_DIRECTORY, ...) changes what open means and is refused.
const KNOWN_FLAGS = [O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY]
  .concat([constants.O_SYNC, constants.O_DSYNC, constants.O_NOATIME ?? 0, constants.O_DIRECT ?? 0])
  .reduce((all, flag) => all | flag, O_RDONLY);

const DEFAULT_FLAGS: Record<ScopeMode, number> = {
  read: O_RDONLY,
  write: O_WRONLY,
  create: O_WRONLY | O_CREAT | O_TRUNC,
};

/** A file opened inside the roots, with the checks that led to it. */
export type OpenedInScope = { readonly handle: FileHandle; readonly resolved: ResolvedPath; readonly stats: Stats };

/**
 * Opens a model-supplied path inside the roots and returns the handle; the caller closes it. The path is resolved
 * with {@link resolveInScope}, its parent directory is opened by descriptor, the file is opened through that
 * descriptor with `O_NOFOLLOW`, and the kernel's path for the new descriptor is checked against the roots again, so
 * a symlink swapped in after the check is refused rather than followed. Only regular files are opened. In-place
 * writes to a file with more than one hard link are refused, and `O_TRUNC` is applied only after all checks pass.
 * Writes are checked against the roots' `writable` lists on the resolved path, on the pinned directory's kernel path
 * before the open, and on the new descriptor's kernel path after it.
 *
 * @param flags `fs.constants` open flags. `O_NOFOLLOW` is always added; `create` always adds `O_CREAT`.
 * @default flags read: `O_RDONLY`; write: `O_WRONLY`; create: `O_WRONLY | O_CREAT | O_TRUNC`
 * @example
 * const handle = await openInScope(['/runs/t1/task'], 'brief.md', 'read');
 * try { console.log(await handle.readFile('utf8')) } finally { await handle.close() }
 */
export async function openInScope(
  roots: readonly PathRoot[],
  userPath: string,
  mode: ScopeMode,
  flags?: number,
): Promise<FileHandle> {
  const { handle } = await openWithScope(await resolveScope(roots), userPath, mode, flags);
  return handle;
}

/** {@link openInScope} with roots already resolved, returning what was checked too. */
export async function openWithScope(
  scope: Scope,
  userPath: string,
  mode: ScopeMode,
  flags?: number,
): Promise<OpenedInScope> {
  const plan = planFlags(mode, flags ?? DEFAULT_FLAGS[mode]);
  const resolved = await resolveWithScope(scope, userPath, mode);
  if (resolved.relative === '') {
    throw refusal('path_invalid', userPath, 'names a root directory', 'name a file inside it');
  }
  const dir = await openPinnedDir(scope, userPath, path.dirname(resolved.path));
  try {
    const name = path.basename(resolved.path);
    // Before O_CREAT can make anything: a directory swapped after the walk may have landed the pin somewhere else.
    if (plan.writes) checkWritable(scope, userPath, path.join(dir.at, name));
    let handle: FileHandle;
    try {
      handle = await open(dir.entry(name), plan.flags, 0o666);
    } catch (cause) {
      throw raceRefusal(userPath, cause);
    }
    try {
      const stats = await checkOpened(scope, userPath, handle, resolved.path, plan.writes);
      if (plan.truncate) await handle.truncate(0);
      return { handle, resolved, stats };
    } catch (error) {
      await handle.close();
      throw error;
    }
  } finally {
    await dir.handle.close();
  }
}

async function checkOpened(
  scope: Scope,
  userPath: string,
  handle: FileHandle,
  real: string,
  writes: boolean,
): Promise<Stats> {
  let at = real;
  if (await hasProcFd()) at = await verifyDescriptor(scope, userPath, handle);
  else await verifySameFile(userPath, handle, real);
  if (writes) checkWritable(scope, userPath, at);
  const stats = await handle.stat();
  if (!stats.isFile()) {
    throw refusal('path_invalid', userPath, 'is not a regular file', 'use a regular file');
  }
  if (writes && stats.nlink > 1) throw hardLinkRefusal(userPath, stats.nlink);
  return stats;
}

type FlagPlan = { flags: number; writes: boolean; truncate: boolean };

function planFlags(mode: ScopeMode, requested: number): FlagPlan {
  if (!Number.isInteger(requested) || requested < 0 || (requested & ~KNOWN_FLAGS) !== 0) {
    throw new AgencyError('invalid_argument', `flags ${String(requested)} must be fs.constants open flags`);
  }
  const writes = (requested & (O_WRONLY | O_RDWR)) !== 0;
  const changes = (requested & (O_CREAT | O_EXCL | O_TRUNC | O_APPEND)) !== 0;
  if (mode === 'read' && (writes || changes)) {
    throw new AgencyError(
      'invalid_argument',
      'read mode flags must not write, create, truncate or append; use write or create mode',
    );
  }
  if (mode === 'write' && (!writes || (requested & (O_CREAT | O_EXCL)) !== 0)) {
    throw new AgencyError(
      'invalid_argument',
      'write mode needs O_WRONLY or O_RDWR and opens existing files only; use create mode to create one',
    );
  }
  if (mode === 'create' && !writes) {
    throw new AgencyError('invalid_argument', 'create mode needs O_WRONLY or O_RDWR');
  }
  // O_TRUNC waits until the hard-link and scope checks pass; O_NONBLOCK keeps a FIFO from hanging the open.
  const flags = (requested & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | (mode === 'create' ? O_CREAT : 0);
  return { flags, writes, truncate: (requested & O_TRUNC) !== 0 };
}
