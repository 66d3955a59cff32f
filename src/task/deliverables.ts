import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../core/errno.ts';
import { isTempFileName } from '../core/temp-files.ts';
import { hasProcFd } from '../tools/guards/path-fd.ts';
import type { TaskPaths } from './layout.ts';
import type { Session } from './session.ts';

/** A file the run delivered, under `progress/artifacts/`. */
export type DeliverableRef = { path: string; kind: string; title: string; mime: string; size: number; sha256: string };

/** How much of `progress/artifacts/` {@link listDeliverables} reads. */
export type DeliverableLimits = {
  /** The largest deliverable; a larger file is refused without being read. @default 1073741824 (1 GiB) */
  maxFileBytes?: number;
  /** The most deliverables; files past it are refused. @default 10000 */
  maxFiles?: number;
  /** The most bytes over all deliverables; a file that would pass it is refused. @default 2147483648 (2 GiB) */
  maxTotalBytes?: number;
  /** The most directory entries walked; the walk stops there. @default 100000 */
  maxEntries?: number;
  /** The deepest directory walked below `artifacts/`. @default 32 */
  maxDepth?: number;
};

/** What {@link listDeliverables} found: the deliverables, and a line for each entry it refused and why. */
export type DeliverableListing = { deliverables: DeliverableRef[]; refused: string[] };

/** The defaults of {@link DeliverableLimits}. */
export const DEFAULT_DELIVERABLE_LIMITS: Readonly<Required<DeliverableLimits>> = Object.freeze({
  maxFileBytes: 2 ** 30,
  maxFiles: 10_000,
  maxTotalBytes: 2 ** 31,
  maxEntries: 100_000,
  maxDepth: 32,
});

// Refusals listed one by one before the rest are only counted, so a folder of links cannot flood the journal.
const MAX_REFUSAL_LINES = 20;
const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;
// The mode bits; Node's fs.constants has no S_ISUID/S_ISGID on every platform.
const SET_UID = 0o4000;
const SET_GID = 0o2000;

type Walk = {
  readonly limits: Required<DeliverableLimits>;
  readonly proc: boolean;
  readonly buffer: Buffer;
  readonly deliverables: DeliverableRef[];
  readonly refused: string[];
  counts: { entries: number; bytes: number; unlisted: number; overFiles: number; overTotal: number };
  stopped: boolean;
};

/**
 * Every regular file under `progress/artifacts/`, with its size and SHA-256, sorted by path. The walk never follows a
 * symlink: each directory and file is opened with `O_NOFOLLOW` through its parent's descriptor, and files are hashed
 * by streaming (1 MiB at a time), so memory stays flat whatever their size. Symlinks, FIFOs, sockets, devices,
 * setuid or setgid files and files over the limits are not delivered and not read; each refusal is a line in
 * `refused`, for the caller to journal.
 */
export async function listDeliverables(paths: TaskPaths, limits: DeliverableLimits = {}): Promise<DeliverableListing> {
  const walk: Walk = {
    limits: { ...DEFAULT_DELIVERABLE_LIMITS, ...limits },
    proc: await hasProcFd(),
    buffer: Buffer.allocUnsafe(1 << 20),
    deliverables: [],
    refused: [],
    counts: { entries: 0, bytes: 0, unlisted: 0, overFiles: 0, overTotal: 0 },
    stopped: false,
  };
  let top: FileHandle;
  try {
    top = await open(paths.artifacts, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT') return { deliverables: [], refused: [] };
    return {
      deliverables: [],
      refused: [`progress/artifacts is not a directory (${String(code)}); nothing is delivered`],
    };
  }
  try {
    await walkDir(walk, top, paths.artifacts, '', 0);
  } finally {
    await top.close();
  }
  walk.deliverables.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { deliverables: walk.deliverables, refused: [...walk.refused, ...summaries(walk)] };
}

/**
 * {@link listDeliverables} for a run: each refusal is journaled as a `warning` frame and kept in the result's
 * `warnings`, once per run however often the deliverables are listed.
 */
export async function runDeliverables(
  session: Pick<Session, 'paths' | 'warn' | 'warnings'>,
  limits?: DeliverableLimits,
): Promise<DeliverableListing> {
  const listing = await listDeliverables(session.paths, limits);
  for (const line of listing.refused) if (!session.warnings.includes(line)) session.warn(line);
  return listing;
}

async function walkDir(walk: Walk, dir: FileHandle, dirPath: string, relative: string, depth: number): Promise<void> {
  for (const name of await entryNames(walk, dir, dirPath)) {
    const shown = relative === '' ? name : `${relative}/${name}`;
    const at = walk.proc ? `/proc/self/fd/${dir.fd}/${name}` : join(dirPath, name);
    const stats = await lstat(at).catch(() => undefined);
    if (stats === undefined) continue; // removed since the listing
    if (stats.isFile()) {
      if (!isTempFileName(name)) await deliverFile(walk, at, shown);
    } else if (!stats.isDirectory()) {
      refuse(walk, shown, `is ${kindOf(stats)}`);
    } else if (depth + 1 > walk.limits.maxDepth) {
      refuse(walk, shown, `is nested deeper than ${walk.limits.maxDepth} directories`);
    } else {
      const sub = await open(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch(() => undefined);
      if (sub === undefined) {
        refuse(walk, shown, 'changed while it was being listed');
        continue;
      }
      try {
        await walkDir(walk, sub, join(dirPath, name), shown, depth + 1);
      } finally {
        await sub.close();
      }
    }
    if (walk.stopped) return;
  }
}

// The directory's names in sorted order, read through its descriptor, and no more than the entry limit leaves.
async function entryNames(walk: Walk, dir: FileHandle, dirPath: string): Promise<string[]> {
  const names: string[] = [];
  const listing = await opendir(walk.proc ? `/proc/self/fd/${dir.fd}` : dirPath).catch(() => undefined);
  if (listing === undefined) return names;
  for await (const entry of listing) {
    if (walk.counts.entries++ >= walk.limits.maxEntries) {
      walk.stopped = true;
      break;
    }
    names.push(entry.name);
  }
  return names.sort();
}

async function deliverFile(walk: Walk, at: string, shown: string): Promise<void> {
  // O_NONBLOCK: a file swapped for a FIFO after the lstat still cannot hang the open.
  const handle = await open(at, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY).catch(() => undefined);
  if (handle === undefined) return refuse(walk, shown, 'changed while it was being listed');
  try {
    const stats = await handle.stat();
    const problem = fileProblem(walk.limits, stats);
    if (problem !== undefined) return refuse(walk, shown, problem);
    if (walk.deliverables.length >= walk.limits.maxFiles) {
      walk.counts.overFiles++;
      return;
    }
    if (walk.counts.bytes + stats.size > walk.limits.maxTotalBytes) {
      walk.counts.overTotal++;
      return;
    }
    const hashed = await hashFile(handle, walk.buffer, walk.limits.maxFileBytes);
    if (hashed === undefined) return refuse(walk, shown, 'grew past the size limit while it was read');
    walk.counts.bytes += hashed.size;
    walk.deliverables.push(describe(shown, hashed));
  } finally {
    await handle.close();
  }
}

function fileProblem(limits: Required<DeliverableLimits>, stats: Stats): string | undefined {
  if (!stats.isFile()) return `is ${kindOf(stats)}`;
  if ((stats.mode & (SET_UID | SET_GID)) !== 0) return 'is setuid or setgid';
  if (stats.size > limits.maxFileBytes) {
    return `is ${stats.size} bytes, over the ${limits.maxFileBytes}-byte limit for one deliverable`;
  }
  return undefined;
}

// Streams the file through SHA-256 with one reused buffer; undefined if it grows past `limit` meanwhile.
async function hashFile(
  handle: FileHandle,
  buffer: Buffer,
  limit: number,
): Promise<{ size: number; sha256: string } | undefined> {
  const hash = createHash('sha256');
  let size = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, size);
    if (bytesRead === 0) return { size, sha256: hash.digest('hex') };
    size += bytesRead;
    if (size > limit) return undefined;
    hash.update(buffer.subarray(0, bytesRead));
  }
}

function kindOf(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'a symlink (its target is not read)';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return stats.isDirectory() ? 'a directory' : 'not a regular file';
}

function refuse(walk: Walk, shown: string, problem: string): void {
  if (walk.refused.length >= MAX_REFUSAL_LINES) walk.counts.unlisted++;
  else walk.refused.push(`progress/artifacts/${shown} is not delivered: it ${problem}`);
}

function summaries(walk: Walk): string[] {
  const { limits, counts } = walk;
  const lines: string[] = [];
  if (counts.unlisted > 0) {
    lines.push(`${counts.unlisted} more entries under progress/artifacts/ are not delivered for the same reasons`);
  }
  if (counts.overFiles > 0) {
    lines.push(
      `${counts.overFiles} files under progress/artifacts/ are not delivered: over the ${limits.maxFiles}-file limit`,
    );
  }
  if (counts.overTotal > 0) {
    lines.push(
      `${counts.overTotal} files under progress/artifacts/ are not delivered: they would take the deliverables over ${limits.maxTotalBytes} bytes`,
    );
  }
  if (walk.stopped) {
    lines.push(`progress/artifacts/ has more than ${limits.maxEntries} entries; the listing stopped there`);
  }
  return lines;
}

const MIME: Record<string, string> = {
  md: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  jsonl: 'application/x-ndjson',
  html: 'text/html',
  csv: 'text/csv',
  ts: 'text/typescript',
  js: 'text/javascript',
  mjs: 'text/javascript',
  py: 'text/x-python',
  png: 'image/png',
  pdf: 'application/pdf',
};
const CODE = new Set(['ts', 'js', 'mjs', 'py', 'go', 'rs', 'java', 'sh']);

function describe(shown: string, { size, sha256 }: { size: number; sha256: string }): DeliverableRef {
  const name = shown.slice(shown.lastIndexOf('/') + 1);
  const extension = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  return {
    path: `progress/artifacts/${shown}`,
    kind: CODE.has(extension) ? 'code' : extension === 'md' ? 'report' : 'artifact',
    title: shown,
    mime: MIME[extension] ?? 'application/octet-stream',
    size,
    sha256,
  };
}
