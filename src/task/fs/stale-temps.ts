import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { isTempFileName } from '../../core/temp-files.ts';

/**
 * Removes the temp files that atomic writes interrupted by a crash left under `dir` (see `tempFileName`), without
 * following symlinks, and returns their paths. Directories in `skip` are left alone: another process may be writing
 * there (a person deciding an approval) while this one holds the run lock.
 */
export async function removeStaleTempFiles(dir: string, { skip = [] }: { skip?: string[] } = {}): Promise<string[]> {
  const removed: string[] = [];
  const walk = async (current: string): Promise<void> => {
    if (skip.includes(current)) return;
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && isTempFileName(entry.name)) {
        await unlink(full).then(
          () => removed.push(full),
          () => undefined,
        );
      }
    }
  };
  await walk(dir);
  return removed.sort();
}
