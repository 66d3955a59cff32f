import { randomBytes } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../core/errno.ts';
import { descendantPids } from './process-tree.ts';

/** A pids cgroup made for one run: every process placed in it, and their children, count against `pids.max`. */
export type PidsCgroup = {
  readonly path: string;
  /** Moves `pid` and every process below it into the cgroup; children forked later start there. */
  place(pid: number): Promise<void>;
  /** Kills whatever is still in the cgroup and removes it; later calls return the first call's promise. */
  dispose(): Promise<void>;
};

const PREFIX = 'agency-sandbox-';
// bwrap's monitor runs outside the sandbox's user namespace, so RLIMIT_NPROC does not count it; pids.max does.
const OUTSIDE_PROCESSES = 1;

/**
 * The directory under which agency can make pids cgroups: its own cgroup in the cgroup v1 `pids` hierarchy, when
 * that is mounted and writable (root, usually). Undefined elsewhere, including on cgroup v2 only hosts, where a
 * process's own cgroup cannot take child cgroups with controllers unless it was delegated one.
 */
export function findPidsCgroupParent(read: (path: string) => string = readProcFile): string | undefined {
  const line = read('/proc/self/cgroup')
    .split('\n')
    .map((entry) => entry.split(':'))
    .find(([, controllers]) => controllers?.split(',').includes('pids'));
  const ownPath = line?.slice(2).join(':');
  if (ownPath === undefined) return undefined;
  for (const entry of read('/proc/self/mountinfo').split('\n')) {
    const [mountFields = '', fsFields = ''] = entry.split(' - ');
    const [, , , root, mountPoint] = mountFields.split(' ');
    const [fsType, , superOptions = ''] = fsFields.split(' ');
    if (fsType !== 'cgroup' || !superOptions.split(',').includes('pids') || root === undefined) continue;
    if (mountPoint === undefined || !(ownPath === root || ownPath.startsWith(root === '/' ? '/' : `${root}/`)))
      continue;
    const dir = join(mountPoint, ownPath.slice(root === '/' ? 0 : root.length));
    return isWritableDir(dir) ? dir : undefined;
  }
  return undefined;
}

/**
 * Makes a pids cgroup under `parent` whose `pids.max` lets the sandbox run `processes` processes and threads, bwrap's
 * own included. Pair it with a command that waits to be placed (bwrap's `--block-fd`), so nothing runs outside it.
 */
export async function createPidsCgroup(parent: string, processes: number): Promise<PidsCgroup> {
  await removeOrphans(parent);
  const path = join(parent, `${PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  await mkdir(path);
  try {
    await writeFile(join(path, 'pids.max'), String(processes + OUTSIDE_PROCESSES));
  } catch (error) {
    await rmdir(path).catch(() => {});
    throw error;
  }
  let disposed: Promise<void> | undefined;
  return {
    path,
    place: (pid) => placeTree(path, pid),
    dispose: () => (disposed ??= disposeCgroup(path)),
  };
}

// Moves the process, then whatever it forked before it moved, until a pass finds nothing new. The command has not
// started yet (it waits for its release), so only bwrap's own few processes are found.
async function placeTree(path: string, pid: number): Promise<void> {
  await writeFile(join(path, 'cgroup.procs'), `${pid}\n`);
  const placed = new Set([pid]);
  for (let pass = 0; pass < 10; pass++) {
    const fresh = descendantPids(pid).filter((child) => !placed.has(child));
    if (fresh.length === 0) return;
    for (const child of fresh) {
      placed.add(child);
      await writeFile(join(path, 'cgroup.procs'), `${child}\n`).catch(() => {}); // it may have exited
    }
  }
  throw new Error(`the sandbox's processes kept changing while they were moved into ${path}`);
}

// An agency process that was SIGKILLed left its cgroups behind; their sandboxes died with it, so they are empty and
// rmdir takes them (a busy one fails and stays).
async function removeOrphans(parent: string): Promise<void> {
  const names = await readdir(parent).catch(() => []);
  for (const name of names) {
    const owner = new RegExp(`^${PREFIX}(\\d+)-[0-9a-f]+$`).exec(name)?.[1];
    if (owner === undefined || isAlive(Number(owner))) continue;
    await rmdir(join(parent, name)).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === 'EPERM';
  }
}

async function disposeCgroup(path: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const pids = (await readFile(join(path, 'cgroup.procs'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
    for (const pid of pids) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    try {
      await rmdir(path);
      return;
    } catch (error) {
      if (errnoCode(error) !== 'EBUSY') return; // gone, or not ours to remove
    }
    await new Promise((resolve) => setTimeout(resolve, 20)); // killed processes take a moment to leave
  }
}

function readProcFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function isWritableDir(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
