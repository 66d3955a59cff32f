import { constants } from 'node:fs';
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { syncOpenDir } from '../../core/errno.ts';
import { AgencyError } from '../../core/errors.ts';
import { tempFileName } from '../../core/temp-files.ts';
import { hasProcFd, openPinnedDir, type PinnedDir, raceRefusal, verifyDescriptor } from './path-fd.ts';
import { openWithScope } from './path-open.ts';
import { quotePath } from './path-refusal.ts';
import { type ResolvedPath, resolveWithScope } from './path-resolve.ts';
import { type PathRoot, resolveScope, type Scope } from './path-roots.ts';
import { checkWritable } from './path-writable.ts';

/** The default size limit for {@link readFileInScope} and {@link writeFileAtomicInScope}: 10 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Options for {@link readFileInScope}. */
export type ReadFileInScopeOptions = {
  /** Refuse files larger than this many bytes. @default 10485760 */
  maxBytes?: number;
};

/** Options for {@link writeFileAtomicInScope}. */
export type WriteFileInScopeOptions = {
  /** Refuse data larger than this many bytes. @default 10485760 */
  maxBytes?: number;
  /**
   * Fsync the temp file before the rename and the directory after it. A governed run turns this off for its tools
   * and makes what they wrote durable in one batch at the next journal commit. @default true
   */
  durable?: boolean;
};

/**
 * Reads a regular file inside the roots through {@link openInScope}. Files over `maxBytes` are refused with
 * `invalid_argument`, including files that grow while being read.
 *
 * @example
 * const brief = (await readFileInScope(['/runs/t1/task'], 'brief.md', { maxBytes: 65536 })).toString('utf8');
 */
export async function readFileInScope(
  roots: readonly PathRoot[],
  userPath: string,
  { maxBytes = DEFAULT_MAX_FILE_BYTES }: ReadFileInScopeOptions = {},
): Promise<Buffer> {
  checkLimit(maxBytes);
  const { handle, stats } = await openWithScope(await resolveScope(roots), userPath, 'read');
  try {
    if (stats.size > maxBytes) throw tooLarge(userPath, stats.size, maxBytes);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      // Read past the reported size: the file may have grown since fstat, and the limit must still hold.
      const chunk = Buffer.alloc(Math.min(Math.max(stats.size + 1 - total, 65_536), maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(userPath, total, maxBytes);
    }
  } finally {
    await handle.close();
  }
}

/**
 * Replaces (or creates) a file inside the roots atomically: a temp file is created beside it with
 * `O_CREAT | O_EXCL | O_NOFOLLOW` through the descriptor of its checked parent directory, written, fsynced, renamed
 * over the target, and the directory is fsynced (both fsyncs skipped with `durable: false`). Readers see the old or the new content, never a mix; a symlink at
 * the target is refused, and a hard link at the target is replaced rather than written through. The target, the
 * pinned directory and the temp file are each checked against the roots' `writable` lists.
 *
 * @example
 * await writeFileAtomicInScope(['/runs/t1/progress'], 'notes.md', '# Notes\n');
 */
export async function writeFileAtomicInScope(
  roots: readonly PathRoot[],
  userPath: string,
  data: string | Uint8Array,
  { maxBytes = DEFAULT_MAX_FILE_BYTES, durable = true }: WriteFileInScopeOptions = {},
): Promise<ResolvedPath> {
  checkLimit(maxBytes);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  if (bytes.byteLength > maxBytes) throw tooLarge(userPath, bytes.byteLength, maxBytes);
  const scope = await resolveScope(roots);
  const resolved = await resolveWithScope(scope, userPath, 'create');
  const dir = await openPinnedDir(scope, userPath, path.dirname(resolved.path));
  try {
    const name = path.basename(resolved.path);
    // The temp file and the rename both go through the pinned directory, so the target's place there is what counts.
    checkWritable(scope, userPath, path.join(dir.at, name));
    const temp = tempFileName(name);
    await writeTemp(scope, userPath, dir, { name: temp, target: name, bytes, durable });
    try {
      await rename(dir.entry(temp), dir.entry(name));
    } catch (cause) {
      await unlink(dir.entry(temp)).catch(() => undefined);
      throw raceRefusal(userPath, cause);
    }
    if (durable) await syncOpenDir(() => dir.handle.sync());
    return { ...resolved, kind: 'file' };
  } finally {
    await dir.handle.close();
  }
}

async function writeTemp(
  scope: Scope,
  userPath: string,
  dir: PinnedDir,
  { name, target, bytes, durable }: { name: string; target: string; bytes: Uint8Array; durable: boolean },
): Promise<void> {
  const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
  let handle: FileHandle;
  try {
    handle = await open(dir.entry(name), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666);
  } catch (cause) {
    throw raceRefusal(userPath, cause);
  }
  try {
    if (await hasProcFd()) {
      // The temp file lands beside the target; the target's name in that directory must be writable.
      const at = await verifyDescriptor(scope, userPath, handle);
      checkWritable(scope, userPath, path.join(path.dirname(at), target));
    }
    await handle.writeFile(bytes);
    if (durable) await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(dir.entry(name)).catch(() => undefined);
    throw error;
  }
  await handle.close();
}

function checkLimit(maxBytes: number): void {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new AgencyError('invalid_argument', `maxBytes ${String(maxBytes)} must be a non-negative integer`);
  }
}

function tooLarge(userPath: string, size: number, maxBytes: number): AgencyError {
  return new AgencyError(
    'invalid_argument',
    `${quotePath(userPath)} is larger than the ${maxBytes}-byte limit; use a smaller file or raise maxBytes`,
    { details: { path: userPath, size, maxBytes } },
  );
}
