import path from 'node:path';
import { errnoCode } from '../core/errno.ts';
import { TASK_WRITABLE_PATHS } from '../tools/builtin/task-tools.ts';
import { type DurableFs, fileError, syncDir, syncFile } from './fs/durable-fs.ts';
import type { TaskPaths } from './layout.ts';

/**
 * Makes what tools write under `progress/` durable in one batch, before the journal records that they wrote it: the
 * journal can hold a tool's call and result, not the files a sandboxed process left behind.
 */
export type ToolWrites = {
  /** A tool that may write files is about to run: the files as they are now are the baseline. */
  begin(): Promise<void>;
  /** That tool has ended: what changed is made durable (see `sync`) before its result is journaled. */
  end(): Promise<void>;
  /**
   * Fsyncs every file changed since the baseline, and the directories whose names changed. Does nothing when no
   * writing tool ran since the last call; the runner also calls it at every step boundary.
   */
  sync(): Promise<void>;
};

/** Options for {@link createToolWrites}. */
export type ToolWritesOptions = {
  /** The most entries looked at in one walk; past it, the rest is not made durable and `onWarning` says so. */
  maxEntries?: number;
  onWarning?: (message: string) => void;
};

type Entry = { dir: boolean; ino: number; size: number; mtimeMs: number; ctimeMs: number };

/**
 * Tracks the files tools write where a governed run's tools may write (`artifacts/` and the notes files, see
 * `TASK_WRITABLE_PATHS`), through the run's confined port, by a bounded walk compared with the walk before: a new or
 * replaced file has its content and its directory fsynced, a changed one its content, a removed one its directory.
 * Tools that write (`fs_write` from `taskTools`) therefore need not fsync themselves, and `sandbox_exec` output is
 * covered too.
 */
export function createToolWrites(
  fs: DurableFs,
  paths: Pick<TaskPaths, 'progress' | 'artifacts'>,
  { maxEntries = 10_000, onWarning }: ToolWritesOptions = {},
): ToolWrites {
  let baseline: Map<string, Entry> | undefined;
  let running = 0;
  let dirty = false;
  let warned = false;
  let syncing: Promise<void> | undefined;
  const walk = () =>
    walkWritable(fs, paths, maxEntries, () => {
      if (!warned) onWarning?.(`${paths.artifacts} has more than ${maxEntries} entries; only those were made durable`);
      warned = true;
    });
  const syncNow = async (): Promise<void> => {
    if (!dirty || baseline === undefined) return;
    dirty = running > 0;
    const current = await walk();
    await syncChanges(fs, baseline, current);
    baseline = current;
  };
  const sync = async (): Promise<void> => {
    // A sync already under way may have walked before the latest change: wait for it, then look again.
    while (syncing) await syncing;
    syncing = syncNow().finally(() => (syncing = undefined));
    return syncing;
  };
  return {
    async begin() {
      running++;
      dirty = true;
      baseline ??= await walk();
    },
    end() {
      running = Math.max(0, running - 1);
      return sync();
    },
    sync,
  };
}

async function walkWritable(
  fs: DurableFs,
  paths: Pick<TaskPaths, 'progress' | 'artifacts'>,
  maxEntries: number,
  onOverflow: () => void,
): Promise<Map<string, Entry>> {
  const entries = new Map<string, Entry>();
  const note = async (file: string): Promise<Entry | undefined> => {
    const stats = await fs.lstat(file).catch((error: unknown) => {
      if (errnoCode(error) === 'ENOENT') return undefined;
      throw error;
    });
    if (!stats || (!stats.isFile() && !stats.isDirectory())) return undefined;
    const { ino, size, mtimeMs, ctimeMs } = stats;
    const entry = { dir: stats.isDirectory(), ino, size, mtimeMs, ctimeMs };
    entries.set(file, entry);
    return entry;
  };
  const queue = [paths.artifacts];
  for (const name of TASK_WRITABLE_PATHS) if (name !== 'artifacts') await note(path.join(paths.progress, name));
  while (queue.length > 0) {
    const dir = queue.shift() as string;
    if (!(await note(dir))?.dir) continue;
    for (const child of await fs.readdir(dir).catch(() => [])) {
      if (entries.size >= maxEntries) return (onOverflow(), entries);
      const file = path.join(dir, child.name);
      if ((await note(file))?.dir) queue.push(file);
    }
  }
  return entries;
}

async function syncChanges(fs: DurableFs, before: Map<string, Entry>, after: Map<string, Entry>): Promise<void> {
  const files = new Set<string>();
  const dirs = new Set<string>();
  for (const [file, entry] of after) {
    const was = before.get(file);
    const named = was === undefined || was.ino !== entry.ino || was.dir !== entry.dir;
    if (named) dirs.add(path.dirname(file));
    if (named || was.size !== entry.size || was.mtimeMs !== entry.mtimeMs || was.ctimeMs !== entry.ctimeMs) {
      (entry.dir ? dirs : files).add(file);
    }
  }
  for (const file of before.keys()) if (!after.has(file)) dirs.add(path.dirname(file));
  try {
    for (const file of files) await syncFile(fs, file).catch(ignoreMissing);
    for (const dir of dirs) await syncDir(fs, dir).catch(ignoreMissing);
  } catch (cause) {
    throw fileError('file_write_failed', [...files, ...dirs][0] ?? '', 'fsync of a file a tool wrote', cause, {
      hint: 'what the tools wrote may not survive a power loss',
    });
  }
}

function ignoreMissing(error: unknown): void {
  if (errnoCode(error) !== 'ENOENT') throw error;
}
