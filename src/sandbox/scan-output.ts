import { chmodSync, closeSync, constants, fstatSync, openSync, type Stats, unlinkSync } from 'node:fs';
import { walkTree } from './walk-tree.ts';

/** A file the scan found dangerous to leave on the host, and what it did about it. */
export type QuarantinedFile = {
  /** The absolute host path. */
  path: string;
  /** `setuid`/`setgid`: a regular file with that bit; the others are special files no build needs to leave. */
  what: 'setuid' | 'setgid' | 'fifo' | 'socket' | 'device';
  /** `stripped`: the setuid/setgid bits were cleared; `removed`: the entry was deleted; `failed`: left as found. */
  action: 'stripped' | 'removed' | 'failed';
};

/** What {@link scanSandboxOutput} did. */
export type SandboxOutputScan = {
  quarantined: QuarantinedFile[];
  /** Entries looked at. */
  entries: number;
  /** True when the walk stopped at `maxEntries` or met a directory it could not read: some files went unchecked. */
  incomplete: boolean;
};

/** Options for {@link scanSandboxOutput}. */
export type ScanOptions = {
  /** Entries looked at before the walk stops and reports `incomplete`. @default 100_000 */
  maxEntries?: number;
};

// Linux's O_PATH (the same value on x86_64 and aarch64): a descriptor that pins the inode without reading it, so a
// file without read permission can still be fixed through /proc/self/fd.
const O_PATH = 0o10_000_000;
const S_ISUID = 0o4000;
const SET_ID_BITS = 0o6000;

/**
 * Makes what a sandboxed command left in `paths` safe for the host: setuid and setgid bits are cleared on regular
 * files, and FIFOs, sockets and device nodes are removed. Symlinks are never followed, and bits are cleared through
 * an `O_NOFOLLOW` descriptor checked to be the file that was listed. The walk is bounded by `maxEntries`. Run it
 * when no sandboxed process is left, as {@link runSandboxed} does after every bwrap run.
 *
 * @example
 * const scan = await scanSandboxOutput(['/srv/agency/runs/t1/work']);
 * for (const file of scan.quarantined) console.warn(`${file.path}: ${file.what} ${file.action}`);
 */
export async function scanSandboxOutput(
  paths: readonly string[],
  { maxEntries = 100_000 }: ScanOptions = {},
): Promise<SandboxOutputScan> {
  const quarantined: QuarantinedFile[] = [];
  const walk = await walkTree(paths, maxEntries, (path, stat) => {
    if (!stat.isDirectory()) quarantine(path, stat, quarantined);
  });
  return { quarantined, ...walk };
}

function quarantine(path: string, stat: Stats, quarantined: QuarantinedFile[]): void {
  if (stat.isSymbolicLink()) return;
  if (stat.isFile()) {
    if ((stat.mode & SET_ID_BITS) === 0) return;
    const what = stat.mode & S_ISUID ? 'setuid' : 'setgid';
    const action = stripSetId(path, stat) ? 'stripped' : removeEntry(path) ? 'removed' : 'failed';
    quarantined.push({ path, what, action });
    return;
  }
  const what = stat.isFIFO() ? 'fifo' : stat.isSocket() ? 'socket' : 'device';
  quarantined.push({ path, what, action: removeEntry(path) ? 'removed' : 'failed' });
}

// Clears the bits through a descriptor opened without following a link and checked to be the inode that was
// listed, so a file swapped in since is never touched.
function stripSetId(path: string, listed: Stats): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, O_PATH | constants.O_NOFOLLOW);
    const opened = fstatSync(fd);
    if (!opened.isFile() || opened.ino !== listed.ino || opened.dev !== listed.dev) return false;
    chmodSync(`/proc/self/fd/${fd}`, opened.mode & 0o1777);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function removeEntry(path: string): boolean {
  try {
    unlinkSync(path); // removes the entry itself; never follows a link
    return true;
  } catch {
    return false;
  }
}
