import { constants, type FSWatcher, watch } from 'node:fs';
import { open } from 'node:fs/promises';
import type { EventFrame } from '../contracts/events.ts';
import { errnoCode } from '../../core/errno.ts';

import { checkSeq, journalCorrupt, parseFrameLine } from './parse-journal.ts';

/** Options for {@link followJournal}. */
export type FollowJournalOptions = {
  /** Stops following; the iteration then ends normally. */
  signal?: AbortSignal | undefined;
  /** Yield only frames with a higher seq. @default 0 */
  fromSeq?: number;
  /** How often to look for new bytes when `fs.watch` reports nothing (or is unavailable). @default 250 */
  pollIntervalMs?: number;
  /**
   * Start at the end of the file: yield only frames appended from now on, without reading the ones already there
   * (line numbers in errors then count from there). @default false
   */
  fromEnd?: boolean;
  /** With `fromEnd`: told the seq of the last frame on file where following starts (0 for none). */
  onStart?: (lastSeq: number) => void;
};

// The bytes of the journal line each followed frame was parsed from, so a stream can send the line as written instead
// of serializing the frame again.
const LINES = new WeakMap<EventFrame, Uint8Array>();

/** The journal line (without its newline) a frame yielded by {@link followJournal} was read from. */
export function journalLineOf(frame: EventFrame): Uint8Array | undefined {
  return LINES.get(frame);
}

type Cursor = { offset: number; pending: Buffer; line: number; previous: EventFrame | undefined; yielded: number };

/**
 * Yields the frames of a journal as they are appended, like `tail -f`: first those already written, then new ones
 * as they arrive (woken by `fs.watch`, with polling as the fallback). It waits for a file that does not exist yet,
 * holds back a partial last line until its newline arrives, and survives the file being cut back (a torn tail
 * repaired by a resumed run).
 *
 * @throws AgencyError `journal_corrupt` for a complete line that is not a valid frame.
 * @example
 * for await (const frame of followJournal('/runs/t1/progress/events.ndjson', { signal })) console.log(frame.type);
 */
export async function* followJournal(
  file: string,
  { signal, fromSeq = 0, pollIntervalMs = 250, fromEnd = false, onStart }: FollowJournalOptions = {},
): AsyncGenerator<EventFrame, void, undefined> {
  const waker = createWaker(file, pollIntervalMs, signal);
  const cursor: Cursor = { offset: 0, pending: Buffer.alloc(0), line: 0, previous: undefined, yielded: fromSeq };
  if (fromEnd) {
    await skipToEnd(file, cursor);
    onStart?.(cursor.previous?.seq ?? 0);
  }
  try {
    while (!signal?.aborted) {
      const fresh = await readNew(file, cursor);
      if (fresh === undefined) {
        await waker.wait();
        continue;
      }
      for (const frame of fresh.frames) {
        if (signal?.aborted) return;
        yield frame;
      }
      if (fresh.corrupt) throw fresh.corrupt;
    }
  } finally {
    waker.close();
  }
}

// Reads what was appended since the cursor: its complete frames, up to a corrupt line if there is one (undefined
// when there is nothing new).
async function readNew(file: string, cursor: Cursor): Promise<{ frames: EventFrame[]; corrupt?: Error } | undefined> {
  const bytes = await readFrom(file, cursor);
  if (bytes === undefined || bytes.byteLength === 0) return undefined;
  const heldBack = cursor.pending.byteLength;
  const lineStart = cursor.offset - heldBack;
  const data = Buffer.concat([cursor.pending, bytes]);
  cursor.offset += bytes.byteLength;
  const complete = data.lastIndexOf(0x0a) + 1;
  cursor.pending = data.subarray(complete);
  const frames: EventFrame[] = [];
  for (let start = 0, index = 0; start < complete; index++) {
    const end = data.indexOf(0x0a, start);
    const line = data.subarray(start, end);
    start = end + 1;
    const parsed = parseFrameLine(line.toString('utf8'));
    if ('problem' in parsed) {
      // The partial line held back may have been cut off and rewritten (a repaired torn tail): read it again whole.
      if (index === 0 && heldBack > 0) {
        cursor.offset = lineStart;
        cursor.pending = Buffer.alloc(0);
        return { frames };
      }
      return { frames, corrupt: journalCorrupt(file, cursor.line + 1, parsed.problem) };
    }
    cursor.line += 1;
    try {
      checkSeq(file, cursor.line, parsed.frame, cursor.previous);
    } catch (corrupt) {
      return { frames, corrupt: corrupt as Error };
    }
    cursor.previous = parsed.frame;
    if (parsed.frame.seq > cursor.yielded) {
      cursor.yielded = parsed.frame.seq;
      LINES.set(parsed.frame, line);
      frames.push(parsed.frame);
    }
  }
  return { frames };
}

// Places the cursor after the last complete line, remembering that line's frame so seqs are still checked.
async function skipToEnd(file: string, cursor: Cursor): Promise<void> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - 65_536);
    const tail = Buffer.alloc(size - start);
    await handle.read(tail, 0, tail.byteLength, start);
    const last = tail.lastIndexOf(0x0a);
    if (last < 0) return;
    cursor.offset = start + last + 1;
    const previousLine = tail.subarray(tail.lastIndexOf(0x0a, last - 1) + 1, last).toString('utf8');
    const parsed = parseFrameLine(previousLine);
    if ('frame' in parsed) {
      cursor.previous = parsed.frame;
      cursor.yielded = Math.max(cursor.yielded, parsed.frame.seq);
    }
  } finally {
    await handle.close();
  }
}

async function readFrom(file: string, cursor: Cursor): Promise<Buffer | undefined> {
  let handle;
  try {
    // Never through a link: a journal replaced by one would otherwise be read from wherever it points.
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size < cursor.offset) restart(cursor, size);
    // At most a mebibyte at a time: a long journal is read and parsed in pieces, not held whole.
    const length = Math.min(size - cursor.offset, 1024 * 1024);
    if (length === 0) return undefined;
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, cursor.offset);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

// The file shrank. If only the held-back partial line went, continue where it started; otherwise the file was
// replaced, so read it again from the top (frames already yielded are skipped by seq).
function restart(cursor: Cursor, size: number): void {
  const lineStart = cursor.offset - cursor.pending.byteLength;
  cursor.pending = Buffer.alloc(0);
  if (size >= lineStart) {
    cursor.offset = lineStart;
    return;
  }
  cursor.offset = 0;
  cursor.line = 0;
  cursor.previous = undefined;
}

type Waker = { wait(): Promise<void>; close(): void };

function createWaker(file: string, pollIntervalMs: number, signal: AbortSignal | undefined): Waker {
  let watcher: FSWatcher | undefined;
  let wakeUp: (() => void) | undefined;
  let dirty = false;
  const poke = (): void => {
    if (wakeUp) wakeUp();
    else dirty = true;
  };
  const startWatching = (): void => {
    if (watcher) return;
    try {
      watcher = watch(file, { persistent: false }, poke);
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      // No file yet, or no inotify here: polling covers it.
    }
  };
  signal?.addEventListener('abort', poke);
  return {
    wait: () => {
      startWatching();
      if (dirty || signal?.aborted) {
        dirty = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const timer = setTimeout(() => wakeUp?.(), pollIntervalMs);
        wakeUp = () => {
          wakeUp = undefined;
          clearTimeout(timer);
          resolve();
        };
      });
    },
    close: () => {
      watcher?.close();
      signal?.removeEventListener('abort', poke);
    },
  };
}
