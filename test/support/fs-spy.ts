import { type DurableFs, nodeDurableFs } from '../../src/task/fs/durable-fs.ts';

/** One {@link DurableFs} operation. */
export type FsOp =
  | 'open'
  | 'write'
  | 'fsync'
  | 'ftruncate'
  | 'close'
  | 'rename'
  | 'unlink'
  | 'readFile'
  | 'readFd'
  | 'mkdir'
  | 'readdir'
  | 'lstat'
  | 'link';

/** One recorded call: the operation and what it was made on (a path, or a descriptor with the path it was opened at). */
export type FsCall = { op: FsOp; target: string | number; path?: string };

/** Decides whether a call fails: return an error to make it fail before it reaches the real file system. */
export type FsFault = (call: FsCall, index: number) => Error | undefined;

/** Options for {@link createFsSpy}. */
export type FsSpyOptions = {
  fault?: FsFault;
  /** Milliseconds to hold a call before it reaches the file system (a slow disk for this caller only). */
  delay?: (call: FsCall) => number | undefined;
};

/** A {@link DurableFs} that records its calls and can inject faults and delays. */
export type FsSpy = {
  fs: DurableFs;
  /** Every call, in order. */
  readonly calls: readonly FsCall[];
  /** How many calls were made to any of `ops`. */
  count(...ops: FsOp[]): number;
};

/**
 * Wraps a {@link DurableFs} to count calls (fsyncs per step in tests and benchmarks), to inject faults such as EIO
 * on the third fsync, and to slow one caller's disk down. Calls on a descriptor carry the path it was opened at, so
 * a test can tell which file an fsync made durable.
 *
 * @example
 * const spy = createFsSpy(nodeDurableFs, { fault: (call) => (call.op === 'fsync' ? osError('EIO', 'fsync') : undefined) });
 */
export function createFsSpy(base: DurableFs = nodeDurableFs, { fault, delay }: FsSpyOptions = {}): FsSpy {
  const calls: FsCall[] = [];
  const opened = new Map<number, string>();
  const spied = async <T>(op: FsOp, target: string | number, run: () => Promise<T>): Promise<T> => {
    const path = typeof target === 'number' ? opened.get(target) : undefined;
    const call: FsCall = path === undefined ? { op, target } : { op, target, path };
    calls.push(call);
    const error = fault?.(call, calls.length - 1);
    if (error) throw error;
    const ms = delay?.(call);
    if (ms) await new Promise((resolve) => setTimeout(resolve, ms));
    return run();
  };
  const fs: DurableFs = {
    open: async (path, flags, mode) => {
      const fd = await spied('open', path, () => base.open(path, flags, mode));
      opened.set(fd, path);
      return fd;
    },
    write: (fd, data, offset, length) => spied('write', fd, () => base.write(fd, data, offset, length)),
    fsync: (fd) => spied('fsync', fd, () => base.fsync(fd)),
    ftruncate: (fd, length) => spied('ftruncate', fd, () => base.ftruncate(fd, length)),
    close: (fd) => spied('close', fd, () => base.close(fd)),
    rename: (from, to) => spied('rename', to, () => base.rename(from, to)),
    unlink: (path) => spied('unlink', path, () => base.unlink(path)),
    readFile: (path) => spied('readFile', path, () => base.readFile(path)),
    readFd: (fd) => spied('readFd', fd, () => base.readFd(fd)),
    mkdir: (path) => spied('mkdir', path, () => base.mkdir(path)),
    readdir: (path) => spied('readdir', path, () => base.readdir(path)),
    lstat: (path) => spied('lstat', path, () => base.lstat(path)),
    link: (from, to) => spied('link', to, () => base.link(from, to)),
  };
  return { fs, calls, count: (...ops) => calls.filter((call) => ops.includes(call.op)).length };
}

/** An error shaped like the one Node raises for a failed system call, e.g. `osError('ENOSPC', 'write')`. */
export function osError(code: string, syscall: string): NodeJS.ErrnoException {
  const messages: Record<string, string> = { EIO: 'i/o error', ENOSPC: 'no space left on device' };
  const error: NodeJS.ErrnoException = new Error(`${code}: ${messages[code] ?? 'injected failure'}, ${syscall}`);
  error.code = code;
  error.syscall = syscall;
  return error;
}
