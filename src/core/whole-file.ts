// Lock files that appear whole: what the run lock and the directors' workspace locks are made of.
import { link, open, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errnoCode } from './errno.ts';
import { tempFileName } from './temp-files.ts';

/** The errors of `link` on file systems that refuse hard links (FUSE, SMB), or across devices. */
export const LINK_UNSUPPORTED: ReadonlySet<string> = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * Creates `file` holding `text` if no file has that name, and says whether it did. The text goes to a temp file
 * beside it, hard-linked to the name: a link never replaces a file, so of processes racing one wins, and none ever
 * reads the file half written (and takes it for a dead writer's). Not fsynced: a lock matters only while its holder
 * lives. Where the file system refuses hard links, an exclusive open is used instead, which can show a reader the
 * file before its text for a moment.
 */
export async function createWhole(file: string, text: string, mode: number): Promise<boolean> {
  const temp = join(dirname(file), tempFileName(basename(file)));
  await writeFile(temp, text, { mode, flag: 'wx' });
  try {
    await link(temp, file);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    if (!LINK_UNSUPPORTED.has(errnoCode(error) ?? '')) throw error;
    return await createByExclusiveOpen(file, text, mode);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

async function createByExclusiveOpen(file: string, text: string, mode: number): Promise<boolean> {
  try {
    const handle = await open(file, 'wx', mode);
    await handle.writeFile(text).finally(() => handle.close());
    return true;
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Removes `file`, judged stale by its reader, only if it is still that file: it is renamed aside first (one of
 * several processes taking it over gets it), then `isSameAsJudged` reads the moved file; when another process
 * replaced it in between, it is linked back to its name.
 */
export async function removeStale(file: string, isSameAsJudged: (moved: string) => Promise<boolean>): Promise<void> {
  const aside = join(dirname(file), tempFileName(`${basename(file)}.stale`));
  try {
    await rename(file, aside);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw error;
  }
  if (!(await isSameAsJudged(aside))) await link(aside, file).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}
