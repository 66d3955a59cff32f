import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from '../../core/errno.ts';
import { AgencyError } from '../../core/errors.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { confineFs, type ConfinedFs } from './confined-fs.ts';
import { type DurableFs, fileError, nodeDurableFs } from './durable-fs.ts';

/** The largest file the runner reads back from its own folder (a journal is read by the journal reader instead). */
export const MAX_TASK_FILE_BYTES = 64 * 1024 * 1024;

/**
 * How the runner reads and writes its own files (spec, state, plan, approvals, notes, step records): confined to the
 * task folder, never through a symbolic link, and with every write scrubbed of secrets. One object per task folder.
 */
export type TaskFiles = {
  /** The confined port, for the journal and the state store. */
  readonly fs: ConfinedFs;
  /** The text of a regular file, or undefined when there is none. @throws AgencyError for a link or a special file */
  readText(file: string): Promise<string | undefined>;
  /**
   * Replaces a file atomically with `text`, redacted. Without `durable` nothing is fsynced: the runner's own files
   * are rebuilt from the journal after a power loss (see `restoreDerivedFiles`).
   */
  write(file: string, text: string, options?: { durable?: boolean }): Promise<void>;
  /** Creates a directory and its missing parents under the root, refusing links on the way. */
  ensureDir(dir: string): Promise<void>;
  /** The entries of a directory, or none when it does not exist. */
  list(dir: string): Promise<Array<{ name: string; kind: 'file' | 'dir' | 'other' }>>;
  /** Whether anything (a link included) has this name. */
  exists(file: string): Promise<boolean>;
  /** Removes a file if it is there. */
  remove(file: string): Promise<void>;
};

/** Options for {@link createTaskFiles}. */
export type TaskFilesOptions = {
  /** The file system underneath. @default nodeDurableFs */
  fs?: DurableFs | undefined;
  /** Scrubs text before it is written. @default no scrubbing */
  redactText?: (text: string) => string;
};

/**
 * The runner's file access for the folder at `root`.
 *
 * @example
 * const files = createTaskFiles('/runs/t1', { redactText: (text) => redactor.redactText(text) });
 * await files.write('/runs/t1/progress/notes.md', '# Notes\n');
 */
export function createTaskFiles(
  root: string,
  { fs: base = nodeDurableFs, redactText = (text) => text }: TaskFilesOptions = {},
): TaskFiles {
  const fs = confineFs(base, root);
  // The common case, a new directory under existing ones, costs one mkdir; missing parents are made on the way back.
  const ensureDir = async (dir: string): Promise<void> => {
    const resolved = path.resolve(dir);
    if (resolved === fs.root) return void (await mkdir(fs.root, { recursive: true }));
    try {
      await fs.mkdir(resolved);
    } catch (cause) {
      const code = errnoCode(cause);
      if (code === 'ENOENT') {
        await ensureDir(path.dirname(resolved));
        return ensureDir(resolved);
      }
      if (code !== 'EEXIST')
        throw AgencyError.isInstance(cause) ? cause : fileError('file_write_failed', resolved, 'mkdir', cause);
      if (!(await fs.lstat(resolved)).isDirectory()) throw notADirectory(resolved);
    }
  };
  return {
    fs,
    async readText(file) {
      let bytes: Buffer;
      try {
        bytes = await fs.readFile(file);
      } catch (cause) {
        const code = errnoCode(cause);
        if (code === 'ENOENT') return undefined;
        if (code === 'ELOOP') throw linkError(file, cause);
        throw AgencyError.isInstance(cause) ? cause : fileError('internal', file, 'read', cause);
      }
      if (bytes.byteLength > MAX_TASK_FILE_BYTES) {
        throw new AgencyError('limit_exceeded', `${file} is ${bytes.byteLength} bytes, over the runner's limit`);
      }
      return bytes.toString('utf8');
    },
    async write(file, text, { durable = false } = {}) {
      await writeFileAtomic(file, redactText(text), { fs, durable });
    },
    ensureDir,
    async list(dir) {
      const entries = await fs.readdir(dir).catch((cause: unknown) => {
        if (errnoCode(cause) === 'ENOENT') return [];
        throw cause;
      });
      return entries.map((entry) => ({
        name: entry.name,
        kind: entry.isFile() ? 'file' : entry.isDirectory() ? 'dir' : 'other',
      }));
    },
    async exists(file) {
      return fs.lstat(file).then(
        () => true,
        (cause: unknown) => {
          if (errnoCode(cause) === 'ENOENT') return false;
          throw cause;
        },
      );
    },
    async remove(file) {
      await fs.unlink(file).catch((cause: unknown) => {
        if (errnoCode(cause) !== 'ENOENT') throw cause;
      });
    },
  };
}

function linkError(file: string, cause: unknown): AgencyError {
  return new AgencyError(
    'path_symlink_escape',
    `${file} is a symbolic link; the runner never follows links in its task folder. Replace it with the real file.`,
    { cause, details: { path: file } },
  );
}

function notADirectory(dir: string): AgencyError {
  return new AgencyError(
    'path_symlink_escape',
    `${dir} is a symbolic link or a file where the runner needs a directory; replace it with a real directory.`,
    { details: { path: dir } },
  );
}
