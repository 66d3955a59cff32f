import fs from 'node:fs';
import { AgencyError } from '../../core/errors.ts';
import type { ErrorCode } from '../../core/error-codes.ts';

/**
 * The few file-system calls the durability layer makes, on numeric descriptors so that a test can wrap them and
 * inject ENOSPC or EIO at any one call (see {@link createFsSpy}).
 *
 * Each call comes in two forms. The async form is what a caller uses when `blocking` is false: the calls then run
 * off the event loop's thread. When `blocking` is true the async calls would block the thread anyway, so callers
 * take their synchronous path, which makes the same calls in the same order without a promise between them. A
 * journal that fsyncs on every append always uses the sync form, since `append` must not return before the bytes
 * are on disk.
 */
export type DurableFs = {
  /** True if the calls run on the calling thread: callers should then use the `*Sync` forms. */
  readonly blocking: boolean;
  open(path: string, flags: number, mode?: number): Promise<number>;
  openSync(path: string, flags: number, mode?: number): number;
  /** Writes once; may write fewer bytes than asked (callers loop). Returns the bytes written. */
  write(fd: number, data: Uint8Array, offset: number, length: number): Promise<number>;
  writeSync(fd: number, data: Uint8Array, offset: number, length: number): number;
  fsync(fd: number): Promise<void>;
  fsyncSync(fd: number): void;
  ftruncate(fd: number, length: number): Promise<void>;
  close(fd: number): Promise<void>;
  closeSync(fd: number): void;
  rename(from: string, to: string): Promise<void>;
  renameSync(from: string, to: string): void;
  unlink(path: string): Promise<void>;
  unlinkSync(path: string): void;
  readFile(path: string): Promise<Buffer>;
  /** Reads the rest of an open file. */
  readFd(fd: number): Promise<Buffer>;
  /** Creates one directory (not its parents); EEXIST when something, a link included, already has the name. */
  mkdir(path: string): Promise<void>;
  /** The names in a directory. */
  readdir(path: string): Promise<fs.Dirent[]>;
  /** Describes a path without following a final link. */
  lstat(path: string): Promise<fs.Stats>;
  /** Hard-links `to` to the file at `from` (never following a link at `from`); EEXIST when `to` exists. */
  link(from: string, to: string): Promise<void>;
};

// The calls only the runner's own file handling makes, off the event loop's thread in both ports.
const METADATA_CALLS = {
  readFd: (fd: number) =>
    new Promise<Buffer>((resolve, reject) => {
      fs.readFile(fd, (error, data) => (error ? reject(error) : resolve(data)));
    }),
  mkdir: (path: string) => fs.promises.mkdir(path),
  readdir: (path: string) => fs.promises.readdir(path, { withFileTypes: true }),
  lstat: (path: string) => fs.promises.lstat(path),
  link: (from: string, to: string) => fs.promises.link(from, to),
};

// The synchronous forms, shared by both ports.
const SYNC_CALLS = {
  openSync: (path: string, flags: number, mode?: number) => fs.openSync(path, flags, mode),
  writeSync: (fd: number, data: Uint8Array, offset: number, length: number) => fs.writeSync(fd, data, offset, length),
  fsyncSync: (fd: number) => fs.fsyncSync(fd),
  closeSync: (fd: number) => fs.closeSync(fd),
  renameSync: (from: string, to: string) => fs.renameSync(from, to),
  unlinkSync: (path: string) => fs.unlinkSync(path),
};

/**
 * The real file system through libuv's thread pool: the event loop stays free while a call (an fsync that takes
 * milliseconds) runs, at the price of two thread hand-offs per call, which cost 20–50 µs each on a small VM.
 */
export const threadPoolDurableFs: DurableFs = {
  ...SYNC_CALLS,
  ...METADATA_CALLS,
  blocking: false,
  open: (path, flags, mode) =>
    new Promise((resolve, reject) => {
      fs.open(path, flags, mode, (error, fd) => (error ? reject(error) : resolve(fd)));
    }),
  write: (fd, data, offset, length) =>
    new Promise((resolve, reject) => {
      fs.write(fd, data, offset, length, null, (error, written) => (error ? reject(error) : resolve(written)));
    }),
  fsync: (fd) => callback((done) => fs.fsync(fd, done)),
  ftruncate: (fd, length) => callback((done) => fs.ftruncate(fd, length, done)),
  close: (fd) => callback((done) => fs.close(fd, done)),
  rename: (from, to) => fs.promises.rename(from, to),
  unlink: (path) => fs.promises.unlink(path),
  readFile: (path) => fs.promises.readFile(path),
};

/**
 * The real file system, each call made synchronously on the calling thread (the async forms return a settled
 * promise): no thread hand-offs, so a durable step costs little more than its system calls, but the event loop waits
 * while an fsync runs (as it does for every `node:sqlite` commit). The default.
 */
export const inlineDurableFs: DurableFs = {
  ...SYNC_CALLS,
  ...METADATA_CALLS,
  blocking: true,
  open: (path, flags, mode) => settle(() => fs.openSync(path, flags, mode)),
  write: (fd, data, offset, length) => settle(() => fs.writeSync(fd, data, offset, length)),
  fsync: (fd) => settle(() => fs.fsyncSync(fd)),
  ftruncate: (fd, length) => settle(() => fs.ftruncateSync(fd, length)),
  close: (fd) => settle(() => fs.closeSync(fd)),
  rename: (from, to) => settle(() => fs.renameSync(from, to)),
  unlink: (path) => settle(() => fs.unlinkSync(path)),
  readFile: (path) => settle(() => fs.readFileSync(path)),
};

/** How the durability layer reaches the disk: on the calling thread (`inline`) or through libuv's thread pool. */
export type DurableIo = 'inline' | 'thread-pool';

/** The {@link DurableFs} for a {@link DurableIo} choice. */
export function durableFsFor(io: DurableIo): DurableFs {
  return io === 'inline' ? inlineDurableFs : threadPoolDurableFs;
}

/** The file system the durability layer uses unless told otherwise: {@link inlineDurableFs}. */
export const nodeDurableFs: DurableFs = inlineDurableFs;

/** Writes all of `data` at the descriptor's position, looping over short writes. */
export async function writeAll(fsPort: DurableFs, fd: number, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.byteLength) {
    offset += await fsPort.write(fd, data, offset, data.byteLength - offset);
  }
}

/** {@link writeAll} for the synchronous path. */
export function writeAllSync(fsPort: DurableFs, fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.byteLength) {
    offset += fsPort.writeSync(fd, data, offset, data.byteLength - offset);
  }
}

/** The OS error code of a failed call (`ENOSPC`, `EIO`…), or `undefined` for anything else. */
export function osErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/** Options for {@link fileError}. */
export type FileErrorOptions = {
  /** What it means for the caller, appended to the message. */
  hint?: string;
  /** More facts for `details`. */
  details?: Record<string, unknown>;
};

/**
 * An AgencyError for a failed file operation that names the file, the step that failed and the OS code, e.g.
 * `progress/state.json: fsync failed (EIO: i/o error); the file is unchanged`.
 */
export function fileError(
  code: ErrorCode,
  path: string,
  step: string,
  cause: unknown,
  { hint, details }: FileErrorOptions = {},
): AgencyError {
  const osCode = osErrorCode(cause);
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new AgencyError(code, `${path}: ${step} failed (${reason})${hint ? `; ${hint}` : ''}`, {
    cause,
    details: { path, step, ...(osCode === undefined ? {} : { os_code: osCode }), ...details },
  });
}

function settle<T>(run: () => T): Promise<T> {
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(error);
  }
}

function callback(run: (done: (error: NodeJS.ErrnoException | null) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => run((error) => (error ? reject(error) : resolve())));
}
