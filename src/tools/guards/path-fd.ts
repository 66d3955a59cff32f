import { constants } from 'node:fs';
import { access, type FileHandle, open, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from '../../core/errno.ts';
import { fsRefusal, refusal } from './path-refusal.ts';
import { findRoot, type Scope } from './path-roots.ts';

/** A directory opened by descriptor and checked to be inside the roots; entries are reached through the descriptor. */
export type PinnedDir = {
  readonly handle: FileHandle;
  /** The real path the directory was resolved to. */
  readonly real: string;
  /** Where the kernel says the opened directory is (`real` where `/proc/self/fd` is missing). Writes check this. */
  readonly at: string;
  /** A path to `name` inside this very directory, immune to its ancestors being swapped for symlinks. */
  entry(name: string): string;
};

let procFd: Promise<boolean> | undefined;

/** Whether `/proc/self/fd` exists, which lets the guard ask the kernel where a descriptor really points. */
export function hasProcFd(): Promise<boolean> {
  procFd ??= access('/proc/self/fd').then(
    () => true,
    () => false,
  );
  return procFd;
}

/**
 * Opens the directory `real` without following a final symlink and checks where the descriptor landed. On Linux,
 * `entry(name)` is `/proc/self/fd/<fd>/<name>`, which the kernel resolves from the descriptor itself (like
 * `openat`), so swapping an ancestor for a symlink after the check cannot redirect the open.
 */
export async function openPinnedDir(scope: Scope, userPath: string, real: string): Promise<PinnedDir> {
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (cause) {
    throw raceRefusal(userPath, cause);
  }
  try {
    const proc = await hasProcFd();
    let at = real;
    if (proc) at = await verifyDescriptor(scope, userPath, handle);
    else await verifySameFile(userPath, handle, real);
    return {
      handle,
      real,
      at,
      entry: (name) => (proc ? `/proc/self/fd/${handle.fd}/${name}` : path.join(real, name)),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Asks the kernel for the path of an open descriptor and refuses it unless it is inside the roots. */
export async function verifyDescriptor(scope: Scope, userPath: string, handle: FileHandle): Promise<string> {
  // readlink, not realpath: the kernel's own name for the open file, not a second walk that could be raced.
  const real = await readlink(`/proc/self/fd/${handle.fd}`);
  if (real.endsWith(' (deleted)')) {
    throw refusal('path_not_found', userPath, 'was removed while it was being opened', 'try again');
  }
  if (findRoot(scope, real) === undefined) {
    throw refusal(
      'path_symlink_escape',
      userPath,
      `changed while it was being opened and now leads outside the allowed roots (${scope.display})`,
      'use a path whose directories are not being swapped',
      { scope },
    );
  }
  return real;
}

/** Without /proc: checks that the descriptor and the path still name the same file (weaker; see docs/paths.md). */
export async function verifySameFile(userPath: string, handle: FileHandle, real: string): Promise<void> {
  const [opened, named] = await Promise.all([handle.stat(), stat(real).catch(() => undefined)]);
  if (named === undefined || opened.dev !== named.dev || opened.ino !== named.ino) {
    throw refusal(
      'path_symlink_escape',
      userPath,
      'changed while it was being opened',
      'use a path that is not being swapped',
    );
  }
}

/** Maps an error from opening an already-checked path: anything surprising means the path changed under us. */
export function raceRefusal(userPath: string, cause: unknown) {
  switch (errnoCode(cause)) {
    case 'ELOOP':
    case 'ENOTDIR':
      return refusal(
        'path_symlink_escape',
        userPath,
        'changed into a symlink or a file while it was being opened',
        'use a path that is not being swapped',
        { cause },
      );
    case 'ENOENT':
      return refusal('path_not_found', userPath, 'was removed while it was being opened', 'try again', { cause });
    case 'EISDIR':
      return refusal('path_invalid', userPath, 'is a directory', 'name a file', { cause });
    case 'ENXIO':
      return refusal(
        'path_invalid',
        userPath,
        'is not a regular file (a FIFO, socket or device)',
        'use a regular file',
        { cause },
      );
    case 'EEXIST':
      return refusal('path_invalid', userPath, 'already exists', 'pick a new name or open it in write mode', { cause });
    default:
      return fsRefusal(userPath, cause);
  }
}
