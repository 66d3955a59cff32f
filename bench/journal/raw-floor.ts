import fs from 'node:fs';

// The physical floor: the system calls a journal commit makes, issued directly through libuv's thread pool with no
// runtime in between. agency's figures are compared against these, measured on the same disk in the same run.

/** An append-only file written with one async `write` + `fsync` per line, as the journal's commit makes them. */
export function openRawAppender(file: string): { append(bytes: Uint8Array): Promise<void>; close(): void } {
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o644);
  const call = (run: (done: (error: Error | null) => void) => void) =>
    new Promise<void>((resolve, reject) => run((error) => (error ? reject(error) : resolve())));
  return {
    async append(bytes) {
      await call((done) => fs.write(fd, bytes, 0, bytes.byteLength, null, (error) => done(error)));
      await call((done) => fs.fsync(fd, done));
    },
    close: () => fs.closeSync(fd),
  };
}

/** How long the async `run` takes, in µs. */
export async function timeUsAsync(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return (performance.now() - started) * 1000;
}

/** The median of some numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The `q` quantile (0..1) of some numbers, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** Rounds to `digits` decimals, for reports. */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
