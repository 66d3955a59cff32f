// A director's `history/`: one `<id>.json` per piece of work (a scheduled run, an issue), the last 100 finished kept.
import { mkdir, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../../../core/errors.ts';
import { isTempFileName } from '../../../core/temp-files.ts';
import { writeFileAtomic } from '../../../task/fs/atomic-write.ts';
import { type DirectorEntry, FINAL_DIRECTOR_ENTRY_STATES, directorEntrySchema } from '../../api/director-schemas.ts';
import type { DirectorHistory } from '../director.ts';

/** Finished entries kept; older ones are deleted. Unfinished ones are always kept. */
export const HISTORY_KEPT = 100;
const LOG_LINES = 200;
const OUTPUT_PREVIEW = 200;

/** The history with what `GET /history` needs besides the kind's `save` and `read`. */
export type HistoryIndex = DirectorHistory & {
  /** A page of entries, newest first, without their log and with outputs cut. */
  page(page: number, limit: number): { items: Array<Omit<DirectorEntry, 'log'>>; total: number };
};

/**
 * Opens `dir`, reading every entry; one that does not parse is moved aside as `<name>.corrupt` (and `warn` says so),
 * torn temp files are removed.
 */
export async function openDirectorHistory(dir: string, warn: (message: string) => void): Promise<HistoryIndex> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const entries = new Map<string, DirectorEntry>();
  for (const name of await readdir(dir)) {
    const file = join(dir, name);
    if (isTempFileName(name)) await unlink(file).catch(() => undefined);
    if (!name.endsWith('.json')) continue;
    try {
      const entry = directorEntrySchema.parse(JSON.parse(await readFile(file, 'utf8')));
      entries.set(entry.id, entry);
    } catch (error) {
      warn(`history: ${file} is malformed (${errorMessage(error).slice(0, 200)}); moved aside as .corrupt`);
      await rename(file, `${file}.corrupt`).catch(() => undefined);
    }
  }
  let queue: Promise<unknown> = Promise.resolve();
  const newestFirst = () =>
    [...entries.values()].sort((a, b) => b.started_at.localeCompare(a.started_at) || b.id.localeCompare(a.id));
  const write = async (entry: DirectorEntry) => {
    await writeFileAtomic(join(dir, `${entry.id}.json`), `${JSON.stringify(entry)}\n`, { mode: 0o600 });
    const finished = newestFirst().filter((one) => isFinished(one));
    for (const old of finished.slice(HISTORY_KEPT)) {
      entries.delete(old.id);
      await unlink(join(dir, `${old.id}.json`)).catch(() => undefined);
    }
  };
  return {
    save(entry) {
      const snapshot = directorEntrySchema.parse({ ...entry, log: entry.log.slice(-LOG_LINES) });
      entries.set(snapshot.id, snapshot);
      const done = queue.then(() => write(snapshot));
      queue = done.catch(() => undefined);
      return done;
    },
    read: async (id) => entries.get(id),
    page(page, limit) {
      const all = newestFirst();
      const items = all.slice((page - 1) * limit, page * limit).map(({ log: _log, ...entry }) => ({
        ...entry,
        result: entry.result && { ...entry.result, output: entry.result.output?.slice(0, OUTPUT_PREVIEW) ?? null },
      }));
      return { items, total: all.length };
    },
  };
}

function isFinished(entry: DirectorEntry): boolean {
  return (FINAL_DIRECTOR_ENTRY_STATES as readonly string[]).includes(entry.state);
}
