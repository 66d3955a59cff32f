import { constants } from 'node:fs';
import path from 'node:path';
import { errnoCode } from '../../../core/errno.ts';
import { tempFileName } from '../../../core/temp-files.ts';
import { LINK_UNSUPPORTED } from '../../../core/whole-file.ts';
import { syncDir, writeAll } from '../../fs/durable-fs.ts';
import type { TaskFiles } from '../../fs/task-files.ts';

/**
 * Creates `file` with `data` only if it does not exist yet, atomically: the data goes to a temp file, which is then
 * hard-linked to the final name (a link never replaces an existing file). Returns false when the file already
 * exists. Every call goes through `files`, so no link in the folder is followed. With `durable`, the data and the
 * directory are fsynced: a person's decision is the only record of it until the run journals it; the files the
 * runner writes itself (requests, automatic decisions, expiries) are journaled first and skip it.
 */
export async function createFileExclusive(
  files: TaskFiles,
  file: string,
  data: string,
  { durable }: { durable: boolean },
): Promise<boolean> {
  const temp = path.join(path.dirname(file), tempFileName(path.basename(file)));
  await files.write(temp, data, { durable });
  try {
    await files.fs.link(temp, file);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    if (!LINK_UNSUPPORTED.has(errnoCode(error) ?? '')) throw error;
    // Some filesystems (FUSE, SMB) refuse hard links: fall back to an exclusive open, which can expose a partially
    // written file to a reader for a moment; readers refuse partial files anyway.
    return await createWithExclusiveOpen(files, file, data, durable);
  } finally {
    await files.remove(temp).catch(() => undefined);
  }
  if (durable) await syncDir(files.fs, path.dirname(file));
  return true;
}

const { O_WRONLY, O_CREAT, O_EXCL } = constants;

async function createWithExclusiveOpen(
  files: TaskFiles,
  file: string,
  data: string,
  durable: boolean,
): Promise<boolean> {
  const { fs } = files;
  let fd: number;
  try {
    fd = await fs.open(file, O_WRONLY | O_CREAT | O_EXCL, 0o644);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await writeAll(fs, fd, Buffer.from(data, 'utf8'));
    if (durable) await fs.fsync(fd);
  } finally {
    await fs.close(fd);
  }
  if (durable) await syncDir(fs, path.dirname(file));
  return true;
}
