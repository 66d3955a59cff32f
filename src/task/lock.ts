import { hostname } from 'node:os';
import { constants } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { errnoCode } from '../core/errno.ts';
import { AgencyError } from '../core/errors.ts';
import { createWhole, removeStale } from '../core/whole-file.ts';

/** A held run lock. */
export type RunLock = { release(): Promise<void>; readonly takenOver?: { pid: number; startedAt: string } | undefined };

type LockFile = { pid: number; host: string; started_at: string };

/**
 * Takes the lock file that allows one run per task root. The file holds the owner's pid; a lock whose process is
 * gone (on this host) is stale and is taken over. The file appears whole (written to a temp file beside it, then
 * hard-linked to its name, which fails if the name exists), so a process that finds it never reads it half written
 * and takes it for a dead one's; a stale lock is renamed aside and checked to be the very file judged stale.
 * @throws AgencyError `task_locked` naming the process that holds the lock.
 */
export async function acquireRunLock(path: string, { pid = process.pid, now = Date.now } = {}): Promise<RunLock> {
  const content: LockFile = { pid, host: hostname(), started_at: new Date(now()).toISOString() };
  let takenOver: RunLock['takenOver'];
  const text = `${JSON.stringify(content)}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await createWhole(path, text, 0o644)) return { release: () => releaseLock(path, pid), takenOver };
    const holder = await readLock(path);
    if (holder && holder.host === content.host && isAlive(holder.pid)) {
      throw new AgencyError(
        'task_locked',
        `Another run (pid ${holder.pid}, started ${holder.started_at}) is active on this task. Stop it with ` +
          `\`agency stop\`, or wait for it to finish.`,
        { details: { pid: holder.pid, lock: path } },
      );
    }
    if (holder && holder.host !== content.host) {
      throw new AgencyError(
        'task_locked',
        `This task is locked by pid ${holder.pid} on host ${holder.host}. If that run is dead, delete ${path}.`,
        { details: { pid: holder.pid, host: holder.host, lock: path } },
      );
    }
    if (holder) takenOver = { pid: holder.pid, startedAt: holder.started_at };
    await removeStale(path, async (moved) => {
      const found = await readLock(moved);
      return found?.pid === holder?.pid && found?.started_at === holder?.started_at;
    });
  }
  throw new AgencyError('task_locked', `Could not take the run lock ${path}; another process keeps creating it`);
}

async function readLock(path: string): Promise<LockFile | undefined> {
  try {
    // O_NOFOLLOW: a lock file replaced by a link is treated like a torn one, never read through.
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const text = await handle.readFile('utf8').finally(() => handle.close());
    const parsed = JSON.parse(text) as Partial<LockFile>;
    return typeof parsed.pid === 'number'
      ? { pid: parsed.pid, host: String(parsed.host ?? ''), started_at: String(parsed.started_at ?? '') }
      : undefined;
  } catch {
    // A torn or empty lock file: its writer died before finishing it.
    return undefined;
  }
}

async function releaseLock(path: string, pid: number): Promise<void> {
  const holder = await readLock(path);
  if (holder?.pid === pid) await rm(path, { force: true });
}

/** True when a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === 'EPERM';
  }
}

/**
 * When a process started (ms since the epoch), from `/proc` on Linux; undefined elsewhere or when it is gone. With
 * the pid it names a process for good: a pid reused by a later process has another start. Field 22 of
 * `/proc/<pid>/stat` is its start in clock ticks after boot (100 a second on Linux), and `/proc/stat` has the boot
 * time, which the kernel may shift by a second as the clock is adjusted: compare with a little slack.
 */
export async function processStartedAt(pid: number): Promise<number | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const boot = Number(/^btime (\d+)$/m.exec(await readFile('/proc/stat', 'utf8'))?.[1]);
    return Number.isFinite(ticks) && Number.isFinite(boot) ? boot * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** The pid holding the lock, if any and alive. */
export async function lockHolder(path: string): Promise<number | undefined> {
  const holder = await readLock(path);
  return holder && isAlive(holder.pid) ? holder.pid : undefined;
}

/** Who wrote the lock file, and whether that process is still alive (on this host); undefined without a lock. */
export async function lockOwner(path: string): Promise<{ pid: number; host: string; alive: boolean } | undefined> {
  const holder = await readLock(path);
  if (!holder) return undefined;
  return { pid: holder.pid, host: holder.host, alive: holder.host === hostname() && isAlive(holder.pid) };
}
