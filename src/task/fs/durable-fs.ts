import fs from 'node:fs';
import { errnoCode, syncOpenDir } from '../../core/errno.ts';
import { AgencyError } from '../../core/errors.ts';
import type { ErrorCode } from '../../core/error-codes.ts';

/**
 * The few file-system calls the durability layer makes, on numeric descriptors so that a test can wrap them and
 * inject ENOSPC or EIO at any one call, or delay one (see {@link createFsSpy}). Every call is asynchronous: a process
 * hosting many runs never waits on one run's fsync.
 */
export type DurableFs = {
  open(path: string, flags: number, mode?: number): Promise<number>;
  /** Writes once; may write fewer bytes than asked (callers loop). Returns the bytes written. */
  write(fd: number, data: Uint8Array, offset: number, length: number): Promise<number>;
  fsync(fd: number): Promise<void>;
  ftruncate(fd: number, length: number): Promise<void>;
  close(fd: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
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

/** The real file system, every call through libuv's thread pool, off the event loop's thread. */
export const nodeDurableFs: DurableFs = {
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
  readFd: (fd) =>
    new Promise<Buffer>((resolve, reject) => {
      fs.readFile(fd, (error, data) => (error ? reject(error) : resolve(data)));
    }),
  mkdir: (path) => fs.promises.mkdir(path),
  readdir: (path) => fs.promises.readdir(path, { withFileTypes: true }),
  lstat: (path) => fs.promises.lstat(path),
  link: (from, to) => fs.promises.link(from, to),
};

/** Writes all of `data` at the descriptor's position, looping over short writes. */
export async function writeAll(fsPort: DurableFs, fd: number, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.byteLength) {
    offset += await fsPort.write(fd, data, offset, data.byteLength - offset);
  }
}

const { O_RDONLY, O_DIRECTORY } = fs.constants;

/**
 * Fsyncs a directory by name, so that the names created, replaced or removed in it survive a power loss: the journal,
 * atomic writes, approval files and the deliverables of a step all call it. See {@link syncOpenDir} for what may fail.
 */
export async function syncDir(fsPort: DurableFs, dir: string): Promise<void> {
  const fd = await fsPort.open(dir, O_RDONLY | O_DIRECTORY);
  try {
    await syncOpenDir(() => fsPort.fsync(fd));
  } finally {
    await fsPort.close(fd);
  }
}

/** Fsyncs the content of an existing file, written by anyone (a tool, a sandboxed process). */
export async function syncFile(fsPort: DurableFs, file: string): Promise<void> {
  const fd = await fsPort.open(file, O_RDONLY);
  try {
    await fsPort.fsync(fd);
  } finally {
    await fsPort.close(fd);
  }
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
  const osCode = errnoCode(cause);
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new AgencyError(code, `${path}: ${step} failed (${reason})${hint ? `; ${hint}` : ''}`, {
    cause,
    details: { path, step, os_code: osCode, ...details },
  });
}

function callback(run: (done: (error: NodeJS.ErrnoException | null) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => run((error) => (error ? reject(error) : resolve())));
}
