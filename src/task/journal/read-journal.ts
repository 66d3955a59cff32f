import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from '../../core/errno.ts';
import { AgencyError } from '../../core/errors.ts';
import { confineFs } from '../fs/confined-fs.ts';
import type { EventFrame } from '../contracts/events.ts';
import { type DurableFs, fileError, nodeDurableFs } from '../fs/durable-fs.ts';
import { parseFrameLine, parseJournal, type TornTail } from './parse-journal.ts';

/** Options for {@link readJournal}. */
export type ReadJournalOptions = {
  /** Cut a torn last line off the file (truncate to the last intact newline, then fsync). @default false */
  repair?: boolean;
  /** The file system. @default nodeDurableFs, confined to the journal's directory (see confineFs) */
  fs?: DurableFs;
};

/** The intact frames of a journal, and the torn last line that was skipped (and cut off, with `repair`). */
export type ReadJournalResult = { frames: EventFrame[]; torn?: TornTail };

/**
 * Reads `progress/events.ndjson`. A torn last line (a write cut short by a crash or a full disk) is skipped and
 * reported as `torn`; with `repair: true` it is also cut off the file, so appends continue on a clean line.
 *
 * @throws AgencyError `journal_corrupt` for a malformed line before the last, a frame that fails the
 * `agent.events.v1` schema, or a `seq` that does not strictly increase; `path_not_found` if there is no file.
 * @example
 * const { frames, torn } = await readJournal('/runs/t1/progress/events.ndjson', { repair: true });
 */
export async function readJournal(
  file: string,
  { repair = false, fs = confineFs(nodeDurableFs, path.dirname(file)) }: ReadJournalOptions = {},
): Promise<ReadJournalResult> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (cause) {
    if (errnoCode(cause) === 'ENOENT') {
      throw new AgencyError('path_not_found', `${file}: no journal here`, { cause, details: { path: file } });
    }
    throw fileError('internal', file, 'read', cause);
  }
  const { frames, torn, intactBytes } = parseJournal(bytes, file);
  if (torn && repair) await truncate(fs, file, intactBytes);
  return torn ? { frames, torn } : { frames };
}

async function truncate(fs: DurableFs, file: string, length: number): Promise<void> {
  let step = 'open';
  try {
    const fd = await fs.open(file, constants.O_RDWR);
    try {
      step = 'truncate';
      await fs.ftruncate(fd, length);
      step = 'fsync';
      await fs.fsync(fd);
    } finally {
      await fs.close(fd);
    }
  } catch (cause) {
    throw fileError('journal_not_durable', file, `repairing the torn last line (${step})`, cause);
  }
}

/**
 * The seq of the last frame of `type` (of any type when `type` is undefined) in a journal, read from the end of the
 * file backwards (a finished run's last `finish` is among its last lines, so a long journal costs a few reads, not a
 * parse of every line); 0 when there is none or no file.
 */
export async function lastSeqOfType(file: string, type?: string): Promise<number> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return 0;
  }
  try {
    const { size } = await handle.stat();
    const needle = type === undefined ? '"seq":' : `"type":"${type}"`;
    let end = size;
    let carry = '';
    while (end > 0) {
      const start = Math.max(0, end - 65_536);
      const buffer = Buffer.alloc(end - start);
      await handle.read(buffer, 0, buffer.byteLength, start);
      const text = buffer.toString('utf8') + carry;
      const lines = text.split('\n');
      carry = start > 0 ? (lines.shift() ?? '') : '';
      for (let index = lines.length - 1; index >= 0; index--) {
        const line = lines[index]!;
        if (!line.includes(needle)) continue;
        const parsed = parseFrameLine(line);
        if ('frame' in parsed && (type === undefined || parsed.frame.type === type)) return parsed.frame.seq;
      }
      end = start;
    }
    return 0;
  } finally {
    await handle.close();
  }
}
