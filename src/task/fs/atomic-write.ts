import { constants } from 'node:fs';
import path from 'node:path';
import { tempFileName } from '../../core/temp-files.ts';
import type { AgencyError } from '../../core/errors.ts';
import { type DurableFs, fileError, nodeDurableFs, osErrorCode, writeAll, writeAllSync } from './durable-fs.ts';

/** Options for {@link writeFileAtomic}. */
export type WriteFileAtomicOptions = {
  /** The file system. @default nodeDurableFs */
  fs?: DurableFs;
  /** Permissions of a newly created file. @default 0o644 */
  mode?: number;
  /**
   * The temp file to write, in the same directory as `file` and named by `tempFileName`. A writer that replaces the
   * same file again and again (the state store, at every step boundary) passes the same name each time, which the
   * directory then already knows: a fresh name per write costs more, right after an fsync. If that file exists
   * (another write under the same name in progress, or a crash left it), a fresh name is used instead.
   * @default a fresh name for every call
   */
  temp?: string;
};

const { O_WRONLY, O_CREAT, O_EXCL, O_RDONLY, O_DIRECTORY } = constants;
const CREATE_NEW = O_WRONLY | O_CREAT | O_EXCL;

/**
 * Replaces (or creates) `file` so that after a crash it holds either the old or the new content, never a mix: the
 * data goes to a uniquely named temp file in the same directory (created with `O_EXCL`), which is fsynced, renamed
 * over the target, and then the directory is fsynced so the rename itself survives a power loss.
 *
 * If writing the temp file fails, the target is untouched and the temp file removed. If only the final directory
 * fsync fails, the new content is in place but may not survive a power loss; the call still rejects. With a
 * blocking port (the default) the calls are made synchronously, one after the other.
 *
 * @throws AgencyError `file_write_failed` naming the file, the failed step and the OS code (`details.os_code`).
 * @example
 * await writeFileAtomic('/runs/t1/progress/state.json', JSON.stringify(state, null, 2) + '\n');
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  { fs = nodeDurableFs, mode = 0o644, temp }: WriteFileAtomicOptions = {},
): Promise<void> {
  const replacement: Replacement = {
    fs,
    file,
    dir: path.dirname(file),
    temp: temp ?? freshTemp(file),
    reusedTemp: temp !== undefined,
    bytes: typeof data === 'string' ? Buffer.from(data, 'utf8') : data,
    mode,
  };
  if (fs.blocking) replaceSync(replacement);
  else await replaceAsync(replacement);
}

type Replacement = {
  fs: DurableFs;
  file: string;
  dir: string;
  temp: string;
  /** The caller chose the temp name: if it exists, draw a fresh one. */
  reusedTemp: boolean;
  bytes: Uint8Array;
  mode: number;
};

function freshTemp(file: string): string {
  return path.join(path.dirname(file), tempFileName(path.basename(file)));
}

function tempTaken(replacement: Replacement, cause: unknown): boolean {
  return replacement.reusedTemp && osErrorCode(cause) === 'EEXIST';
}

// The two paths make the same calls in the same order and fail the same way; see DurableFs on `blocking`.
function replaceSync(replacement: Replacement): void {
  const { fs, file, dir, temp, bytes, mode } = replacement;
  let fd: number;
  try {
    fd = fs.openSync(temp, CREATE_NEW, mode);
  } catch (cause) {
    if (tempTaken(replacement, cause)) return replaceSync({ ...replacement, temp: freshTemp(file), reusedTemp: false });
    throw unchanged(file, 'creating a temp file', cause);
  }
  let step = 'write';
  try {
    writeAllSync(fs, fd, bytes);
    step = 'fsync';
    fs.fsyncSync(fd);
    step = 'close';
    fs.closeSync(fd);
  } catch (cause) {
    if (step !== 'close') quietly(() => fs.closeSync(fd));
    quietly(() => fs.unlinkSync(temp));
    throw unchanged(file, step, cause);
  }
  try {
    fs.renameSync(temp, file);
  } catch (cause) {
    quietly(() => fs.unlinkSync(temp));
    throw unchanged(file, 'rename', cause);
  }
  try {
    const dirFd = fs.openSync(dir, O_RDONLY | O_DIRECTORY);
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  } catch (cause) {
    throw notSynced(file, cause);
  }
}

async function replaceAsync(replacement: Replacement): Promise<void> {
  const { fs, file, dir, temp, bytes, mode } = replacement;
  let fd: number;
  try {
    fd = await fs.open(temp, CREATE_NEW, mode);
  } catch (cause) {
    if (tempTaken(replacement, cause))
      return replaceAsync({ ...replacement, temp: freshTemp(file), reusedTemp: false });
    throw unchanged(file, 'creating a temp file', cause);
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
    throw unchanged(file, step, cause);
  }
  try {
    await fs.rename(temp, file);
  } catch (cause) {
    await fs.unlink(temp).catch(() => undefined);
    throw unchanged(file, 'rename', cause);
  }
  try {
    const dirFd = await fs.open(dir, O_RDONLY | O_DIRECTORY);
    try {
      await fs.fsync(dirFd);
    } finally {
      await fs.close(dirFd);
    }
  } catch (cause) {
    throw notSynced(file, cause);
  }
}

function unchanged(file: string, step: string, cause: unknown): AgencyError {
  return fileError('file_write_failed', file, step, cause, { hint: 'the file is unchanged' });
}

function notSynced(file: string, cause: unknown): AgencyError {
  return fileError('file_write_failed', file, 'fsync of the directory', cause, {
    hint: 'the new content is in place but may not survive a power loss',
  });
}

function quietly(run: () => void): void {
  try {
    run();
  } catch {
    // Cleanup after a failure already being reported.
  }
}
