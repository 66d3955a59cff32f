import { type DurableFs, nodeDurableFs } from './durable-fs.ts';

/** One {@link DurableFs} operation, whichever form (async or `*Sync`) was called. */
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

/** One recorded call: the operation, what it was made on (a path or a descriptor), and whether the sync form ran. */
export type FsCall = { op: FsOp; target: string | number; sync: boolean };

/** Decides whether a call fails: return an error to make it fail before it reaches the real file system. */
export type FsFault = (call: FsCall, index: number) => Error | undefined;

/** A {@link DurableFs} that records its calls and can inject faults. */
export type FsSpy = {
  fs: DurableFs;
  /** Every call, in order. */
  readonly calls: readonly FsCall[];
  /** How many calls were made to any of `ops`, in either form. */
  count(...ops: FsOp[]): number;
};

/**
 * Wraps a {@link DurableFs} to count calls (fsyncs per step in tests and benchmarks) and to inject faults such as
 * EIO on the third fsync. A fault fails the async form with a rejected promise and the sync form with a throw, as
 * the real calls do. The spy blocks when its base does, so callers take the same path through it.
 *
 * @example
 * const spy = createFsSpy(nodeDurableFs, { fault: (call) => (call.op === 'fsync' ? osError('EIO', 'fsync') : undefined) });
 */
export function createFsSpy(base: DurableFs = nodeDurableFs, { fault }: { fault?: FsFault } = {}): FsSpy {
  const calls: FsCall[] = [];
  const check = (op: FsOp, target: string | number, sync: boolean): void => {
    const call = { op, target, sync };
    calls.push(call);
    const error = fault?.(call, calls.length - 1);
    if (error) throw error;
  };
  const async = <T>(op: FsOp, target: string | number, run: () => Promise<T>): Promise<T> => {
    try {
      check(op, target, false);
    } catch (error) {
      return Promise.reject(error);
    }
    return run();
  };
  const sync = <T>(op: FsOp, target: string | number, run: () => T): T => {
    check(op, target, true);
    return run();
  };
  const fs: DurableFs = {
    blocking: base.blocking,
    open: (path, flags, mode) => async('open', path, () => base.open(path, flags, mode)),
    openSync: (path, flags, mode) => sync('open', path, () => base.openSync(path, flags, mode)),
    write: (fd, data, offset, length) => async('write', fd, () => base.write(fd, data, offset, length)),
    writeSync: (fd, data, offset, length) => sync('write', fd, () => base.writeSync(fd, data, offset, length)),
    fsync: (fd) => async('fsync', fd, () => base.fsync(fd)),
    fsyncSync: (fd) => sync('fsync', fd, () => base.fsyncSync(fd)),
    ftruncate: (fd, length) => async('ftruncate', fd, () => base.ftruncate(fd, length)),
    close: (fd) => async('close', fd, () => base.close(fd)),
    closeSync: (fd) => sync('close', fd, () => base.closeSync(fd)),
    rename: (from, to) => async('rename', to, () => base.rename(from, to)),
    renameSync: (from, to) => sync('rename', to, () => base.renameSync(from, to)),
    unlink: (path) => async('unlink', path, () => base.unlink(path)),
    unlinkSync: (path) => sync('unlink', path, () => base.unlinkSync(path)),
    readFile: (path) => async('readFile', path, () => base.readFile(path)),
    readFd: (fd) => async('readFd', fd, () => base.readFd(fd)),
    mkdir: (path) => async('mkdir', path, () => base.mkdir(path)),
    readdir: (path) => async('readdir', path, () => base.readdir(path)),
    lstat: (path) => async('lstat', path, () => base.lstat(path)),
    link: (from, to) => async('link', to, () => base.link(from, to)),
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
