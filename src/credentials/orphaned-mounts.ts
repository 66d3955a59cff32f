import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../core/errno.ts';

/** The prefix of a call's mount directory; the holder's pid follows, so a later broker can tell who left it. */
export function mountDirPrefix(pid = process.pid): string {
  return `agency-cred-${pid}-`;
}

// `mkdtemp` appends six characters to the prefix.
const MOUNT_DIR = /^agency-cred-(\d+)-[A-Za-z0-9]{6}$/;

/**
 * Removes the credential mount directories in `tmpDir` whose holder is gone: a process killed with SIGKILL cannot
 * delete its own. Only directories this user owns, named by {@link mountDirPrefix}, with a pid that no longer
 * runs, are removed; a directory of a live process (or of a reused pid) is left alone. Returns the names removed.
 */
export async function removeOrphanedMounts(tmpDir: string): Promise<string[]> {
  const names = await readdir(tmpDir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(MOUNT_DIR.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || pid === process.pid || isAlive(pid)) continue;
    const path = join(tmpDir, name);
    const stat = await lstat(path).catch(() => undefined);
    if (!stat?.isDirectory() || stat.uid !== process.getuid?.()) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the pid runs, under another user.
    return errnoCode(error) !== 'ESRCH';
  }
}
