import fs from 'node:fs';
import path from 'node:path';
import { errnoCode } from '../../core/errno.ts';
import { AgencyError } from '../../core/errors.ts';
import type { DurableFs } from './durable-fs.ts';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** A {@link DurableFs} confined to one directory tree; see {@link confineFs}. */
export type ConfinedFs = DurableFs & {
  /** The tree's root, as given (absolute). */
  readonly root: string;
  /** The port underneath, without confinement. */
  readonly unconfined: DurableFs;
};

/**
 * Confines a {@link DurableFs} to the tree under `root` and makes it refuse symbolic links below `root`: every path
 * must lie under `root`; its directories are opened one at a time with `O_NOFOLLOW` from a descriptor of `root`, and
 * the call then acts on `/proc/self/fd/<dir>/<name>`, which the kernel resolves from the descriptor (like `openat`),
 * so a directory swapped for a link after the walk is not followed either. Opens add `O_NOFOLLOW`; `rename`,
 * `unlink` and `link` never follow a final link anyway, and `readFile` opens with `O_NOFOLLOW`.
 *
 * `root` itself may be reached through a link: it is the operator's choice, and it may not exist yet. Where
 * `/proc/self/fd` is missing (not Linux), each directory is checked with `lstat` before the call instead, which a
 * concurrent swap can race.
 *
 * @throws AgencyError `path_symlink_escape` (as a rejection) naming the link.
 * @example
 * const fs = confineFs(nodeDurableFs, '/runs/t1'); // then hand it to the journal, the state store, the broker…
 */
export function confineFs(port: DurableFs, root: string): ConfinedFs {
  // Confining a confined port confines its base to the new root: the paths handed down must stay plain.
  const base = (port as Partial<ConfinedFs>).unconfined ?? port;
  const given = path.resolve(root);
  const proc = fs.existsSync('/proc/self/fd');
  const pin = (file: string): Pinned => pinParent(given, file, proc);
  const inAsync = async <T>(file: string, run: (entry: string) => Promise<T>): Promise<T> => {
    const pinned = pin(file);
    try {
      return await run(pinned.entry);
    } finally {
      pinned.release();
    }
  };
  const inBoth = async <T>(from: string, to: string, run: (a: string, b: string) => Promise<T>): Promise<T> =>
    inAsync(from, (a) => inAsync(to, (b) => run(a, b)));
  return {
    ...base,
    root: given,
    unconfined: base,
    open: (file, flags, mode) => inAsync(file, (entry) => base.open(entry, flags | O_NOFOLLOW, mode)),
    rename: (from, to) => inBoth(from, to, (a, b) => base.rename(a, b)),
    unlink: (file) => inAsync(file, (entry) => base.unlink(entry)),
    link: (from, to) => inBoth(from, to, (a, b) => base.link(a, b)),
    mkdir: (dir) => inAsync(dir, (entry) => base.mkdir(entry)),
    readdir: (dir) =>
      inAsync(dir, async (entry) => {
        if (!proc || entry === given) return base.readdir(entry);
        const fd = openDirNoFollow(entry, dir, path.basename(dir));
        try {
          return await base.readdir(`/proc/self/fd/${fd}`);
        } finally {
          fs.closeSync(fd);
        }
      }),
    lstat: (file) => inAsync(file, (entry) => base.lstat(entry)),
    readFile: (file) =>
      inAsync(file, async (entry) => {
        const fd = await base.open(entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
        try {
          // A FIFO or a device planted under a control file's name is refused, not read (or waited on).
          if (!fs.fstatSync(fd).isFile()) throw notAFile(file);
          return await base.readFd(fd);
        } finally {
          await base.close(fd);
        }
      }),
  };
}

type Pinned = { entry: string; release(): void };

// Opens the parent directory of `file` from `root` down, one component at a time without following links, and
// returns the path of `file`'s last component through that descriptor. The root itself is returned as is.
function pinParent(root: string, file: string, proc: boolean): Pinned {
  const relative = path.relative(root, path.resolve(file));
  if (relative === '') return { entry: root, release: () => undefined };
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new AgencyError('path_outside_scope', `${file} is outside ${root}; the runner only touches its task folder`);
  }
  const parts = relative.split(path.sep);
  const name = parts.pop() as string;
  if (!proc) return checkWithLstat(root, parts, name, file);
  let fd = fs.openSync(root, O_RDONLY | O_DIRECTORY);
  try {
    for (const part of parts) {
      const next = openDirNoFollow(`/proc/self/fd/${fd}/${part}`, file, part);
      fs.closeSync(fd);
      fd = next;
    }
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  const held = fd;
  return { entry: `/proc/self/fd/${held}/${name}`, release: () => fs.closeSync(held) };
}

function openDirNoFollow(entry: string, file: string, part: string): number {
  try {
    return fs.openSync(entry, DIR_FLAGS);
  } catch (cause) {
    const code = errnoCode(cause);
    if (code === 'ELOOP' || code === 'ENOTDIR') throw linkRefusal(file, part, cause);
    throw cause;
  }
}

function checkWithLstat(root: string, parts: string[], name: string, file: string): Pinned {
  let current = root;
  for (const part of parts) {
    current = path.join(current, part);
    const stats = fs.lstatSync(current, { throwIfNoEntry: false });
    if (stats !== undefined && !stats.isDirectory()) throw linkRefusal(file, part, undefined);
  }
  return { entry: path.join(current, name), release: () => undefined };
}

function linkRefusal(file: string, part: string, cause: unknown): AgencyError {
  return new AgencyError(
    'path_symlink_escape',
    `${file}: "${part}" is a symbolic link or not a directory; the runner never follows links in its task folder. ` +
      'Replace it with a real directory.',
    { cause, details: { path: file, component: part } },
  );
}

function notAFile(file: string): AgencyError {
  return new AgencyError('path_invalid', `${file} is not a regular file; the runner only reads regular files here`, {
    details: { path: file },
  });
}
