import { constants } from 'node:fs';
import path from 'node:path';
import { tempFileName } from '../../core/temp-files.ts';
import { type DurableFs, fileError, nodeDurableFs, writeAll } from './durable-fs.ts';

/** Options for {@link writeFileAtomic}. */
export type WriteFileAtomicOptions = {
  /** The file system. @default nodeDurableFs */
  fs?: DurableFs;
  /** Permissions of a newly created file. @default 0o644 */
  mode?: number;
};

const { O_WRONLY, O_CREAT, O_EXCL, O_RDONLY, O_DIRECTORY } = constants;
const UNCHANGED = { hint: 'the file is unchanged' };

/**
 * Replaces (or creates) `file` so that after a crash it holds either the old or the new content, never a mix: the
 * data goes to a uniquely named temp file in the same directory (created with `O_EXCL`), which is fsynced, renamed
 * over the target, and then the directory is fsynced so the rename itself survives a power loss.
 *
 * If writing the temp file fails, the target is untouched and the temp file removed. If only the final directory
 * fsync fails, the new content is in place but may not survive a power loss; the call still rejects.
 *
 * @throws AgencyError `file_write_failed` naming the file, the failed step and the OS code (`details.os_code`).
 * @example
 * await writeFileAtomic('/runs/t1/progress/state.json', JSON.stringify(state, null, 2) + '\n');
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  { fs = nodeDurableFs, mode = 0o644 }: WriteFileAtomicOptions = {},
): Promise<void> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const dir = path.dirname(file);
  const temp = path.join(dir, tempFileName(path.basename(file)));
  await writeTemp(fs, file, temp, bytes, mode);
  try {
    await fs.rename(temp, file);
  } catch (cause) {
    await fs.unlink(temp).catch(() => undefined);
    throw fileError('file_write_failed', file, 'rename', cause, UNCHANGED);
  }
  await syncDirectory(fs, file, dir);
}

async function writeTemp(fs: DurableFs, file: string, temp: string, bytes: Uint8Array, mode: number): Promise<void> {
  let fd: number;
  try {
    fd = await fs.open(temp, O_WRONLY | O_CREAT | O_EXCL, mode);
  } catch (cause) {
    throw fileError('file_write_failed', file, 'creating a temp file', cause, UNCHANGED);
  }
  let step = 'write';
  try {
    await writeAll(fs, fd, bytes);
    step = 'fsync';
    await fs.fsync(fd);
    step = 'close';
    await fs.close(fd);
  } catch (cause) {
    if (step !== 'close') await fs.close(fd).catch(() => undefined);
    await fs.unlink(temp).catch(() => undefined);
    throw fileError('file_write_failed', file, step, cause, UNCHANGED);
  }
}

async function syncDirectory(fs: DurableFs, file: string, dir: string): Promise<void> {
  try {
    const fd = await fs.open(dir, O_RDONLY | O_DIRECTORY);
    try {
      await fs.fsync(fd);
    } finally {
      await fs.close(fd);
    }
  } catch (cause) {
    throw fileError('file_write_failed', file, 'fsync of the directory', cause, {
      hint: 'the new content is in place but may not survive a power loss',
    });
  }
}
