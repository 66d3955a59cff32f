import { constants } from 'node:fs';
import path from 'node:path';
import { tempFileName } from '../../../core/temp-files.ts';
import { osErrorCode, writeAll } from '../../fs/durable-fs.ts';
import type { TaskFiles } from '../../fs/task-files.ts';

/**
 * Creates `file` with `data` only if it does not exist yet, atomically: the data goes to a temp file, which is then
 * hard-linked to the final name (a link never replaces an existing file). Returns false when the file already
 * exists. Every call goes through `files`, so no link in the folder is followed.
 */
export async function createFileExclusive(files: TaskFiles, file: string, data: string): Promise<boolean> {
  const temp = path.join(path.dirname(file), tempFileName(path.basename(file)));
  await files.write(temp, data);
  try {
    await files.fs.link(temp, file);
  } catch (error) {
    if (osErrorCode(error) === 'EEXIST') return false;
    if (!LINK_UNSUPPORTED.has(osErrorCode(error) ?? '')) throw error;
    // Some filesystems (FUSE, SMB) refuse hard links: fall back to an exclusive open, which can expose a partially
    // written file to a reader for a moment; readers refuse partial files anyway.
    return await createWithExclusiveOpen(files, file, data);
  } finally {
    await files.remove(temp).catch(() => undefined);
  }
  await syncDir(files, path.dirname(file));
  return true;
}

const LINK_UNSUPPORTED = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);
const { O_WRONLY, O_CREAT, O_EXCL, O_RDONLY, O_DIRECTORY } = constants;

async function createWithExclusiveOpen(files: TaskFiles, file: string, data: string): Promise<boolean> {
  const { fs } = files;
  let fd: number;
  try {
    fd = await fs.open(file, O_WRONLY | O_CREAT | O_EXCL, 0o644);
  } catch (error) {
    if (osErrorCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await writeAll(fs, fd, Buffer.from(data, 'utf8'));
    await fs.fsync(fd);
  } finally {
    await fs.close(fd);
  }
  await syncDir(files, path.dirname(file));
  return true;
}

async function syncDir(files: TaskFiles, dir: string): Promise<void> {
  const fd = await files.fs.open(dir, O_RDONLY | O_DIRECTORY);
  try {
    await files.fs.fsync(fd);
  } catch (error) {
    // Some filesystems cannot fsync a directory; the link itself has still happened.
    if (osErrorCode(error) !== 'EINVAL' && osErrorCode(error) !== 'EISDIR') throw error;
  } finally {
    await files.fs.close(fd);
  }
}
