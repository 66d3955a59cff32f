import { constants } from 'node:fs';
import path from 'node:path';
import { AgencyError } from '../../core/errors.ts';
import type { EventFrame, EventInput } from '../contracts/events.ts';
import { type DurableFs, fileError, nodeDurableFs, syncDir, writeAll } from '../fs/durable-fs.ts';
import { createFrameFactory, type FrameFactory, type FrameFactoryOptions } from './frame-factory.ts';
import type { Journal, JournalSyncMode } from './journal.ts';
import type { TornTail } from './parse-journal.ts';
import { readJournal } from './read-journal.ts';

/** Options for {@link openFileJournal}. */
export type FileJournalOptions = FrameFactoryOptions & {
  /**
   * When to fsync. With `'none'`, `flush()` only hands the bytes to the OS and `durableSeq` then means "written".
   * @default 'group'
   */
  sync?: JournalSyncMode;
  /** The file system. @default nodeDurableFs */
  fs?: DurableFs;
  /** How soon after an append the buffer is written (not fsynced), so `tail -f` sees events live. @default 20 */
  writeDelayMs?: number;
  /** Write the buffer as soon as it holds about this many bytes. @default 65536 */
  bufferBytes?: number;
};

const { O_WRONLY, O_APPEND, O_CREAT } = constants;

/**
 * Opens (or creates) an NDJSON journal for appending. An existing journal is read first: a torn last line is cut off,
 * a corrupt one refused, and `seq` continues from the last intact frame.
 *
 * Appends are buffered in memory; the buffer is written shortly after an append (or once it passes `bufferBytes`),
 * and written and fsynced by `flush()`. All writes and fsyncs run in order on one chain, off the event loop's thread;
 * a flush asked for while an earlier one is still queued is served by the same fsync. If a write or fsync fails, the
 * journal is broken for good: the failing `flush()` rejects with `journal_not_durable` (the OS error as cause) and so
 * does every later call. It never retries: after a failed fsync Linux may report the next one clean although the
 * data is lost.
 *
 * @throws AgencyError `journal_corrupt` if the existing journal is malformed before its last line.
 * @example
 * const journal = await openFileJournal('/runs/t1/progress/events.ndjson', { redact: (f) => redactor.redact(f) });
 * journal.append({ type: 'phase.start', step: 'plan' });
 * await journal.flush();
 */
export async function openFileJournal(file: string, options: FileJournalOptions = {}): Promise<Journal> {
  const { sync = 'group', fs = nodeDurableFs, writeDelayMs = 20, bufferBytes = 65_536, ...frameOptions } = options;
  const existing = await readExisting(fs, file);
  const fd = await openForAppend(fs, file, { created: existing === undefined, sync: sync !== 'none' });
  const lastSeq = existing?.frames.at(-1)?.seq ?? 0;
  const makeFrame = createFrameFactory(frameOptions);
  const torn = existing?.torn;
  return new FileJournal({ file, fd, fs, sync, makeFrame, writeDelayMs, bufferBytes, lastSeq, torn });
}

type FileJournalDeps = {
  file: string;
  fd: number;
  fs: DurableFs;
  sync: JournalSyncMode;
  makeFrame: FrameFactory;
  writeDelayMs: number;
  bufferBytes: number;
  lastSeq: number;
  torn: TornTail | undefined;
};

class FileJournal implements Journal {
  readonly #deps: FileJournalDeps;
  #lastSeq: number;
  #writtenSeq: number;
  #durableSeq: number;
  #syncTarget: number;
  #chunks: string[] = [];
  #chunkChars = 0;
  // Every write and fsync runs in order on this chain; its links never reject (a failure lands in #failure).
  #io: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #failure: { step: string; cause: unknown } | undefined;
  #closing: Promise<void> | undefined;

  constructor(deps: FileJournalDeps) {
    this.#deps = deps;
    this.#lastSeq = deps.lastSeq;
    this.#writtenSeq = deps.lastSeq;
    this.#durableSeq = deps.lastSeq;
    this.#syncTarget = deps.lastSeq;
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  get durableSeq(): number {
    return this.#durableSeq;
  }

  append(event: EventInput): EventFrame {
    if (this.#failure) throw this.#refusal();
    if (this.#closing) throw new AgencyError('internal', `${this.#deps.file}: the journal is closed`);
    const seq = this.#lastSeq + 1;
    const frame = this.#deps.makeFrame(event, seq);
    const line = serialize(frame);
    this.#lastSeq = seq;
    this.#chunks.push(line);
    this.#chunkChars += line.length;
    if (this.#chunkChars >= this.#deps.bufferBytes) this.#enqueue(() => this.#write());
    else this.#timer ??= setTimeout(this.#onTimer, this.#deps.writeDelayMs).unref();
    return frame;
  }

  async flush(): Promise<void> {
    if (this.#failure) throw this.#refusal();
    if (this.#lastSeq > this.#syncTarget) {
      this.#syncTarget = this.#lastSeq;
      this.#enqueue(() => this.#commit());
    }
    await this.#io;
    if (this.#failure) throw this.#refusal();
  }

  async read(): Promise<{ frames: EventFrame[]; torn?: TornTail }> {
    const { frames } = await readJournal(this.#deps.file, { fs: this.#deps.fs });
    return this.#deps.torn ? { frames, torn: this.#deps.torn } : { frames };
  }

  close(): Promise<void> {
    this.#closing ??= this.#release();
    return this.#closing;
  }

  async #release(): Promise<void> {
    try {
      await this.flush();
    } finally {
      clearTimeout(this.#timer);
      await this.#io;
      await this.#deps.fs.close(this.#deps.fd).catch(() => undefined);
    }
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#enqueue(() => this.#write());
  };

  #enqueue(task: () => Promise<void>): void {
    this.#io = this.#io.then(task);
  }

  // Writes whatever is buffered when the chain gets here, so appends made while earlier work ran go out together.
  async #write(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#failure || this.#chunks.length === 0) return;
    const data = Buffer.from(this.#chunks.join(''), 'utf8');
    const seq = this.#lastSeq;
    this.#chunks = [];
    this.#chunkChars = 0;
    try {
      await writeAll(this.#deps.fs, this.#deps.fd, data);
      this.#writtenSeq = seq;
    } catch (cause) {
      this.#failure = { step: 'write', cause };
    }
  }

  // One fsync covers every flush asked for before it started: a later commit finds its target already met. Tool
  // calls made side by side are all journaled before any of them flushes, so they share one fsync.
  async #commit(): Promise<void> {
    if (this.#failure || this.#durableSeq >= this.#syncTarget) return;
    await this.#write();
    if (this.#failure) return;
    const seq = this.#writtenSeq;
    try {
      if (this.#deps.sync !== 'none') await this.#deps.fs.fsync(this.#deps.fd);
      this.#durableSeq = Math.max(this.#durableSeq, seq);
    } catch (cause) {
      this.#failure = { step: 'fsync', cause };
    }
  }

  #refusal(): AgencyError {
    const { step, cause } = this.#failure ?? { step: 'write', cause: undefined };
    return fileError('journal_not_durable', this.#deps.file, `journal ${step}`, cause, {
      hint: `frames up to seq ${this.#durableSeq} are on disk, later ones may not be; the journal accepts nothing more`,
      details: { last_seq: this.#lastSeq, durable_seq: this.#durableSeq },
    });
  }
}

function serialize(frame: EventFrame): string {
  try {
    return `${JSON.stringify(frame)}\n`;
  } catch (cause) {
    throw new AgencyError('invalid_argument', `a ${frame.type} event cannot be written as JSON: ${String(cause)}`, {
      cause,
    });
  }
}

async function readExisting(
  fs: DurableFs,
  file: string,
): Promise<{ frames: EventFrame[]; torn?: TornTail } | undefined> {
  try {
    return await readJournal(file, { repair: true, fs });
  } catch (error) {
    if (AgencyError.hasCode(error, 'path_not_found')) return undefined;
    throw error;
  }
}

// Reopened, the file is fsynced, so whatever an earlier process wrote but never synced is durable before seq continues
// from it; created, its directory is, or the file itself may vanish in a power loss (its content is synced by flush).
async function openForAppend(
  fs: DurableFs,
  file: string,
  { created, sync }: { created: boolean; sync: boolean },
): Promise<number> {
  let step = 'open';
  try {
    const fd = await fs.open(file, O_WRONLY | O_APPEND | O_CREAT, 0o644);
    if (!sync) return fd;
    step = 'fsync';
    try {
      if (created) await syncDir(fs, path.dirname(file));
      else await fs.fsync(fd);
    } catch (error) {
      await fs.close(fd).catch(() => undefined);
      throw error;
    }
    return fd;
  } catch (cause) {
    throw fileError('journal_not_durable', file, `opening the journal (${step})`, cause);
  }
}
