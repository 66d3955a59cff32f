import { constants } from 'node:fs';
import path from 'node:path';
import { tempFileName } from '../../core/temp-files.ts';
import type { AgencyError } from '../../core/errors.ts';
import { type DurableFs, fileError, nodeDurableFs, syncDir, writeAll } from './durable-fs.ts';

/** Options for {@link writeFileAtomic}. */
export type WriteFileAtomicOptions = {
  /** The file system. @default nodeDurableFs */
  fs?: DurableFs;
  /** Permissions of a newly created file. @default 0o644 */
  mode?: number;
  /**
   * Fsync the data before the rename and the directory after it, so the new content survives a power loss. Files
   * the journal can rebuild (state, plans, step outputs…) skip both: a reader still never sees half a file.
   * @default true
   */
  durable?: boolean;
};

const { O_WRONLY, O_CREAT, O_EXCL } = constants;
const CREATE_NEW = O_WRONLY | O_CREAT | O_EXCL;

/**
 * Replaces (or creates) `file` so that a reader, or a process killed at any moment, sees either the old or the new
 * content, never a mix: the data goes to a uniquely named temp file in the same directory (created with `O_EXCL`),
 * which is renamed over the target. With `durable` (the default) the temp file is fsynced before the rename and the
 * directory after it, so the rename itself survives a power loss.
 *
 * If writing the temp file fails, the target is untouched and the temp file removed. If only the final directory
 * fsync fails, the new content is in place but may not survive a power loss; the call still rejects.
 *
 * @throws AgencyError `file_write_failed` naming the file, the failed step and the OS code (`details.os_code`).
 * @example
 * await writeFileAtomic('/runs/t1/progress/plan/current.json', text, { durable: false });
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  { fs = nodeDurableFs, mode = 0o644, durable = true }: WriteFileAtomicOptions = {},
): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, tempFileName(path.basename(file)));
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let fd: number;
  try {
    fd = await fs.open(temp, CREATE_NEW, mode);
  } catch (cause) {
    throw unchanged(file, 'creating a temp file', cause);
  }
  let step = 'write';
  try {
    await writeAll(fs, fd, bytes);
    if (durable) {
      step = 'fsync';
      await fs.fsync(fd);
    }
    step = 'close';
    await fs.close(fd);
  } catch (cause) {
    if (step !== 'close') await fs.close(fd).catch(() => undefined);
    await fs.unlink(temp).catch(() => undefined);
    throw unchanged(file, step, cause);
  }
  try {
    await fs.rename(temp, file);
  } catch (cause) {
    await fs.unlink(temp).catch(() => undefined);
    throw unchanged(file, 'rename', cause);
  }
  if (!durable) return;
  try {
    await syncDir(fs, dir);
  } catch (cause) {
    throw fileError('file_write_failed', file, 'fsync of the directory', cause, {
      hint: 'the new content is in place but may not survive a power loss',
    });
  }
}

function unchanged(file: string, step: string, cause: unknown): AgencyError {
  return fileError('file_write_failed', file, step, cause, { hint: 'the file is unchanged' });
}
