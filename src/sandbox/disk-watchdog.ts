import { stat, statfs } from 'node:fs/promises';
import { walkTree } from './walk-tree.ts';

/** What a walk of the writable paths found: allocated bytes, and whether it saw every entry. */
export type DiskUsage = { bytes: number; entries: number; incomplete: boolean };

/** Watches a run's writable paths; `stop` ends the watch and measures once more. */
export type DiskWatchdog = {
  /** Stops watching, measures once more, and says whether the run ever added more than the limit. */
  stop(): Promise<{ exceeded: boolean; addedBytes: number }>;
};

/** Options for {@link startDiskWatchdog}. */
export type DiskWatchdogOptions = {
  /** Entries one walk looks at; past them, the file systems' own counters are used instead. @default 100_000 */
  maxEntries?: number;
  /** How often the file systems' counters are read, which decides whether to walk now. @default 20 */
  pollMs?: number;
  /** The longest time between two walks, whatever the counters say. @default 250 */
  maxWalkIntervalMs?: number;
  now?: () => number;
};

/**
 * The bytes allocated to the entries under `paths` (`st_blocks`, so a sparse file counts what it holds, and a hard
 * link once), walked without following links and bounded by `maxEntries`.
 */
export async function diskUsage(paths: readonly string[], maxEntries = 100_000): Promise<DiskUsage> {
  let bytes = 0;
  const linked = new Set<string>();
  const walk = await walkTree(paths, maxEntries, (_path, stat) => {
    if (stat.nlink > 1 && !stat.isDirectory()) {
      const inode = `${stat.dev}:${stat.ino}`;
      if (linked.has(inode)) return;
      linked.add(inode);
    }
    bytes += stat.blocks * 512;
  });
  return { bytes, ...walk };
}

/**
 * Measures what a run adds to its writable `paths` while it runs, and calls `onExceeded` once when it has added more
 * than `limitBytes`. Every `pollMs` it reads the used space of the file systems holding the paths (one `statfs`
 * each, which counts delayed allocations too); when their growth since the last walk could take the run over the
 * limit, or `maxWalkIntervalMs` has passed, it walks the paths and counts their blocks (see {@link diskUsage}). A
 * walk waits at least twice the last one's duration, so a large tree costs the event loop a bounded share. When a
 * walk cannot see every entry, the file systems' growth since the start counts instead, which other writers on them
 * add to.
 */
export async function startDiskWatchdog(
  paths: readonly string[],
  limitBytes: number,
  onExceeded: () => void,
  {
    maxEntries = 100_000,
    pollMs = 20,
    maxWalkIntervalMs = 250,
    now = () => performance.now(),
  }: DiskWatchdogOptions = {},
): Promise<DiskWatchdog> {
  const [baseline, usedAtStart] = await Promise.all([diskUsage(paths, maxEntries), fileSystemsUsed(paths)]);
  let exceeded = false;
  let addedBytes = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  let lastWalk = { at: now(), took: 0, used: usedAtStart, added: 0 };

  const walk = async (used: number) => {
    const started = now();
    const usage = await diskUsage(paths, maxEntries);
    const added = usage.incomplete ? used - usedAtStart : usage.bytes - baseline.bytes;
    lastWalk = { at: started, took: now() - started, used, added };
    addedBytes = Math.max(addedBytes, added);
    if (added > limitBytes && !exceeded) {
      exceeded = true;
      onExceeded();
    }
  };
  const poll = async () => {
    const used = await fileSystemsUsed(paths);
    const mayExceed = lastWalk.added + (used - lastWalk.used) > limitBytes;
    const due = now() - lastWalk.at >= maxWalkIntervalMs;
    if ((mayExceed || due) && now() - lastWalk.at >= 2 * lastWalk.took) await walk(used);
  };
  const schedule = () => {
    if (stopped || exceeded) return;
    timer = setTimeout(() => {
      inFlight = poll().then(schedule, schedule);
    }, pollMs);
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
      await walk(await fileSystemsUsed(paths));
      return { exceeded, addedBytes };
    },
  };
}

// Bytes in use on the file systems holding `paths`, each file system counted once.
async function fileSystemsUsed(paths: readonly string[]): Promise<number> {
  const seen = new Set<number>();
  let used = 0;
  for (const path of paths) {
    try {
      const { dev } = await stat(path);
      if (seen.has(dev)) continue;
      seen.add(dev);
      const fs = await statfs(path);
      used += (fs.blocks - fs.bfree) * fs.bsize;
    } catch {
      // gone: nothing to count
    }
  }
  return used;
}
