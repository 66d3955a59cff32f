import { closeSync, constants, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';

// The physical floor: the same system calls agency makes, issued directly and synchronously with no runtime in
// between. agency's figures are compared against these, measured on the same disk in the same run.

const { O_WRONLY, O_APPEND, O_CREAT, O_RDONLY, O_DIRECTORY } = constants;

/** An append-only file written with raw `writeSync` + `fsyncSync`, one call each per line. */
export function openRawAppender(file: string): { append(line: Uint8Array): void; close(): void } {
  const fd = openSync(file, O_WRONLY | O_APPEND | O_CREAT, 0o644);
  return {
    append(line) {
      writeSync(fd, line);
      fsyncSync(fd);
    },
    close: () => closeSync(fd),
  };
}

/** How long `run` takes, in µs. */
export function timeUs(run: () => unknown): number {
  const started = performance.now();
  run();
  return (performance.now() - started) * 1000;
}

/** How long the async `run` takes, in µs. */
export async function timeUsAsync(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return (performance.now() - started) * 1000;
}

/** Replaces `file` the durable way (temp, write, fsync, close, rename, fsync of the directory), synchronously. */
export function rawAtomicWrite(file: string, data: Uint8Array): void {
  const temp = `${file}.raw.tmp`;
  const fd = openSync(temp, 'wx', 0o644);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  const dir = openSync(path.dirname(file), O_RDONLY | O_DIRECTORY);
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
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
