import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { descendantPids } from './process-tree.ts';

/** The cgroup controllers a sandboxed run is limited by: its process count and its memory. */
export type CgroupController = 'pids' | 'memory';

/**
 * A directory under which agency makes one cgroup per run: its own cgroup in a cgroup v1 hierarchy of one
 * controller, or a cgroup v2 directory whose `cgroup.subtree_control` enables the controllers.
 */
export type CgroupParent = { path: string; version: 1 | 2; controllers: readonly CgroupController[] };

/** The cgroups made for one run: every process placed in them, and their children, count against their limits. */
export type RunCgroup = {
  /** The controllers that limit this run. */
  readonly controllers: readonly CgroupController[];
  /** Why a parent could not take a cgroup, one line each; its controllers are missing from `controllers`. */
  readonly problems: readonly string[];
  /** Moves `pid` and every process below it into each cgroup; children forked later start there. */
  place(pid: number): Promise<void>;
  /** How many processes the memory cgroup's OOM killer has ended. */
  oomKills(): Promise<number>;
  /** Sends SIGKILL to every process in the cgroups now, without waiting for them to go. */
  kill(): Promise<void>;
  /** Kills whatever is still in the cgroups and removes them; later calls return the first call's promise. */
  dispose(): Promise<void>;
};

/** How {@link findCgroupParents} reads the host: file contents ('' when unreadable) and write access. */
export type CgroupHost = { read: (path: string) => string; writable: (path: string) => boolean };

/** The limits {@link createRunCgroup} sets. */
export type RunCgroupLimits = { processes: number; memoryBytes: number };

const PREFIX = 'agency-sandbox-';
// bwrap's monitor runs outside the sandbox's user namespace, so RLIMIT_NPROC does not count it; pids.max does.
const OUTSIDE_PROCESSES = 1;
const CONTROLLERS: readonly CgroupController[] = ['pids', 'memory'];
// A v2 cgroup beside agency's own escapes that cgroup's limits; it is used only where agency's own has none.
const OWN_LIMIT_FILES = ['pids.max', 'memory.max', 'memory.high', 'memory.swap.max'];

/**
 * Where agency can make cgroups for its runs, at most one parent per controller:
 * - cgroup v1 (hybrid hosts): agency's own cgroup in the `pids` and `memory` hierarchies, when writable (root, usually);
 * - cgroup v2, for the controllers v1 did not give: the parent of agency's own cgroup, when it is writable, its
 *   `cgroup.subtree_control` enables the controller, and agency's cgroup has no limit of its own that a sibling would
 *   escape. That is the layout of a delegated subtree whose processes live in a leaf (systemd's `Delegate=yes` with
 *   `DelegateSubgroup=`, a container whose entrypoint moved itself to `/init`, a user session's `app.slice`).
 * Empty on a host where neither holds, such as a container with a read-only `/sys/fs/cgroup`.
 */
export function findCgroupParents(host: CgroupHost = { read: readProcFile, writable: isWritableDir }): CgroupParent[] {
  const memberships = host.read('/proc/self/cgroup').split('\n').filter(Boolean);
  const mounts = parseCgroupMounts(host.read('/proc/self/mountinfo'));
  const v1 = new Map<string, CgroupController[]>(); // one hierarchy may carry both controllers
  for (const controller of CONTROLLERS) {
    const own = memberships.map((line) => line.split(':')).find(([, list]) => list?.split(',').includes(controller));
    const ownPath = own?.slice(2).join(':');
    const mount = mounts.find((entry) => entry.version === 1 && entry.controllers.includes(controller));
    const dir = ownPath === undefined || mount === undefined ? undefined : inside(mount, ownPath);
    if (dir !== undefined && host.writable(dir)) v1.set(dir, [...(v1.get(dir) ?? []), controller]);
  }
  const parents: CgroupParent[] = [...v1].map(([path, controllers]) => ({ path, version: 1, controllers }));
  const missing = CONTROLLERS.filter(
    (controller) => !parents.some((parent) => parent.controllers.includes(controller)),
  );
  const v2 = missing.length > 0 ? findV2Parent(memberships, mounts, host, missing) : undefined;
  return v2 ? [...parents, v2] : parents;
}

function findV2Parent(
  memberships: string[],
  mounts: CgroupMount[],
  host: CgroupHost,
  wanted: readonly CgroupController[],
): CgroupParent | undefined {
  const ownPath = memberships.find((line) => line.startsWith('0::'))?.slice(3);
  const mount = mounts.find((entry) => entry.version === 2);
  const own = ownPath === undefined || mount === undefined ? undefined : inside(mount, ownPath);
  if (own === undefined || mount === undefined || own === mount.mountPoint) return undefined;
  const parent = dirname(own);
  const enabled = host.read(join(parent, 'cgroup.subtree_control')).trim().split(/\s+/);
  const controllers = wanted.filter((controller) => enabled.includes(controller));
  if (controllers.length === 0 || !host.writable(parent)) return undefined;
  const limited = OWN_LIMIT_FILES.some((file) => !['', 'max'].includes(host.read(join(own, file)).trim()));
  return limited ? undefined : { path: parent, version: 2, controllers };
}

type CgroupMount = { version: 1 | 2; controllers: string[]; root: string; mountPoint: string };

function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const entry of mountinfo.split('\n')) {
    const [mountFields = '', fsFields = ''] = entry.split(' - ');
    const [, , , root, mountPoint] = mountFields.split(' ');
    const [fsType, , superOptions = ''] = fsFields.split(' ');
    if (root === undefined || mountPoint === undefined) continue;
    if (fsType === 'cgroup') mounts.push({ version: 1, controllers: superOptions.split(','), root, mountPoint });
    if (fsType === 'cgroup2') mounts.push({ version: 2, controllers: [], root, mountPoint });
  }
  return mounts;
}

// The directory of cgroup `path` under a mount of the hierarchy's `root` (a container sees part of it).
function inside(mount: CgroupMount, path: string): string | undefined {
  const { root, mountPoint } = mount;
  if (path === root) return mountPoint;
  if (!path.startsWith(root === '/' ? '/' : `${root}/`)) return undefined;
  return join(mountPoint, path.slice(root === '/' ? 0 : root.length));
}

/**
 * Makes a cgroup for one run under each parent, with `pids.max` letting the sandbox run `processes` processes and
 * threads (bwrap's own included) and `memory.max` (`memory.limit_in_bytes` on v1) capping its memory at
 * `memoryBytes`, swap included where the kernel accounts it. A parent that cannot take one is skipped and said why in
 * `problems`. Pair it with a command that waits to be placed (bwrap's `--block-fd`), so nothing runs outside it.
 */
export async function createRunCgroup(parents: readonly CgroupParent[], limits: RunCgroupLimits): Promise<RunCgroup> {
  const name = `${PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`;
  const made: Array<{ path: string; version: 1 | 2; controllers: readonly CgroupController[] }> = [];
  const problems: string[] = [];
  for (const parent of parents) {
    const path = join(parent.path, name);
    try {
      await removeOrphans(parent.path);
      await mkdir(path);
    } catch (error) {
      problems.push(`${parent.path}: ${errorText(error)}`);
      continue;
    }
    try {
      for (const controller of parent.controllers) await setLimit(path, parent.version, controller, limits);
      made.push({ path, version: parent.version, controllers: parent.controllers });
    } catch (error) {
      problems.push(`${path}: ${errorText(error)}`);
      await rmdir(path).catch(() => {});
    }
  }
  let disposed: Promise<void> | undefined;
  return {
    controllers: made.flatMap((cgroup) => cgroup.controllers),
    problems,
    place: async (pid) => {
      for (const cgroup of made) await placeTree(cgroup.path, pid);
    },
    oomKills: async () => {
      let kills = 0;
      for (const { path, version, controllers } of made) {
        if (!controllers.includes('memory')) continue;
        const file = join(path, version === 1 ? 'memory.oom_control' : 'memory.events');
        const events = await readFile(file, 'utf8').catch(() => '');
        kills += Number(/^oom_kill (\d+)$/m.exec(events)?.[1] ?? 0);
      }
      return kills;
    },
    kill: async () => {
      for (const cgroup of made) await killMembers(cgroup.path);
    },
    dispose: () =>
      (disposed ??= (async () => {
        for (const cgroup of made) await disposeCgroup(cgroup.path);
      })()),
  };
}

async function setLimit(path: string, version: 1 | 2, controller: CgroupController, limits: RunCgroupLimits) {
  if (controller === 'pids') return writeFile(join(path, 'pids.max'), String(limits.processes + OUTSIDE_PROCESSES));
  const bytes = String(limits.memoryBytes);
  if (version === 1) {
    await writeFile(join(path, 'memory.limit_in_bytes'), bytes);
    // With swap accounting on, memory plus swap: otherwise the sandbox could push its pages to swap and go on.
    if (existsSync(join(path, 'memory.memsw.limit_in_bytes'))) {
      await writeFile(join(path, 'memory.memsw.limit_in_bytes'), bytes);
    }
    return;
  }
  await writeFile(join(path, 'memory.max'), bytes);
  if (existsSync(join(path, 'memory.swap.max'))) await writeFile(join(path, 'memory.swap.max'), '0');
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
    return (error as { code?: unknown } | null)?.code === 'EPERM';
  }
}

async function killMembers(path: string): Promise<void> {
  const pids = (await readFile(join(path, 'cgroup.procs'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
  for (const pid of pids) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

async function disposeCgroup(path: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    await killMembers(path);
    try {
      await rmdir(path);
      return;
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== 'EBUSY') return; // gone, or not ours to remove
    }
    await new Promise((resolve) => setTimeout(resolve, 20)); // killed processes take a moment to leave
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
