import { type DurableFs, nodeDurableFs } from './durable-fs.ts';

/** The name of one {@link DurableFs} call. */
export type FsOp = keyof DurableFs;

/** One recorded call: the operation and what it was made on (a path or a descriptor). */
export type FsCall = { op: FsOp; target: string | number };

/** Decides whether a call fails: return an error to make it fail before it reaches the real file system. */
export type FsFault = (call: FsCall, index: number) => Error | undefined;

/** A {@link DurableFs} that records its calls and can inject faults. */
export type FsSpy = {
  fs: DurableFs;
  /** Every call, in order. */
  readonly calls: readonly FsCall[];
  /** How many calls were made to any of `ops`. */
  count(...ops: FsOp[]): number;
};

/**
 * Wraps a {@link DurableFs} to count calls (fsyncs per step in tests and benchmarks) and to inject faults such as
 * EIO on the third fsync.
 *
 * @example
 * const spy = createFsSpy(nodeDurableFs, { fault: (call) => (call.op === 'fsync' ? osError('EIO', 'fsync') : undefined) });
 */
export function createFsSpy(base: DurableFs = nodeDurableFs, { fault }: { fault?: FsFault } = {}): FsSpy {
  const calls: FsCall[] = [];
  const check = (op: FsOp, target: string | number): void => {
    const call = { op, target };
    calls.push(call);
    const error = fault?.(call, calls.length - 1);
    if (error) throw error;
  };
  const async = <T>(op: FsOp, target: string | number, run: () => Promise<T>): Promise<T> => {
    try {
      check(op, target);
    } catch (error) {
      return Promise.reject(error);
    }
    return run();
  };
  const fs: DurableFs = {
    open: (path, flags, mode) => async('open', path, () => base.open(path, flags, mode)),
    write: (fd, data, offset, length) => async('write', fd, () => base.write(fd, data, offset, length)),
    writeSync: (fd, data, offset, length) => (check('writeSync', fd), base.writeSync(fd, data, offset, length)),
    fsync: (fd) => async('fsync', fd, () => base.fsync(fd)),
    fsyncSync: (fd) => (check('fsyncSync', fd), base.fsyncSync(fd)),
    ftruncate: (fd, length) => async('ftruncate', fd, () => base.ftruncate(fd, length)),
    close: (fd) => async('close', fd, () => base.close(fd)),
    rename: (from, to) => async('rename', to, () => base.rename(from, to)),
    unlink: (path) => async('unlink', path, () => base.unlink(path)),
    readFile: (path) => async('readFile', path, () => base.readFile(path)),
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
