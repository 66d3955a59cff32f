import { link, mkdir, open, unlink } from 'node:fs/promises';
import path from 'node:path';
import { tempFileName } from '../../../core/temp-files.ts';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import type { WriteFile } from '../file-broker.ts';

/** The default writer: the task folder's shared atomic write (temp file, fsync, rename, fsync of the directory). */
export const defaultWriteFile: WriteFile = (file, data) => writeFileAtomic(file, data);

/**
 * Creates `file` with `data` only if it does not exist yet, atomically: the data goes to a temp file through
 * `write`, which is then hard-linked to the final name (a link never replaces an existing file). Returns false when
 * the file already exists.
 */
export async function createFileExclusive(file: string, data: string, write: WriteFile): Promise<boolean> {
  const temp = path.join(path.dirname(file), tempFileName(path.basename(file)));
  await write(temp, data);
  try {
    await link(temp, file);
  } catch (error) {
    if (errnoOf(error) === 'EEXIST') return false;
    if (!LINK_UNSUPPORTED.has(errnoOf(error) ?? '')) throw error;
    // Some filesystems (FUSE, SMB) refuse hard links: fall back to an exclusive open, which can expose a partially
    // written file to a reader for a moment; readers refuse partial files anyway.
    return await createWithExclusiveOpen(file, data);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  await syncDir(path.dirname(file));
  return true;
}

/** Creates a directory and its parents. */
export async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

/** The `code` of a Node system error, if any. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const LINK_UNSUPPORTED = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

async function createWithExclusiveOpen(file: string, data: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'wx', 0o644);
  } catch (error) {
    if (errnoOf(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await syncDir(path.dirname(file));
  return true;
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some filesystems cannot fsync a directory; the rename itself has still happened.
    if (errnoOf(error) !== 'EINVAL' && errnoOf(error) !== 'EISDIR') throw error;
  } finally {
    await handle.close();
  }
}
