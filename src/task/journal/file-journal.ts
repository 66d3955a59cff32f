import { constants } from 'node:fs';
import path from 'node:path';
import { AgencyError } from '../../core/errors.ts';
import type { EventFrame, EventInput } from '../contracts/events.ts';
import { type DurableFs, fileError, nodeDurableFs, writeAll, writeAllSync } from '../fs/durable-fs.ts';
import { createFrameFactory, type FrameFactory, type FrameFactoryOptions } from './frame-factory.ts';
import type { Journal, JournalSyncMode } from './journal.ts';
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

const { O_WRONLY, O_APPEND, O_CREAT, O_RDONLY, O_DIRECTORY } = constants;
const SCRATCH_BYTES = 16 * 1024;

/**
 * Opens (or creates) an NDJSON journal for appending. An existing journal is read first: a torn last line is cut off,
 * a corrupt one refused, and `seq` continues from the last intact frame.
 *
 * Appends are buffered in memory; the buffer is written shortly after an append (or once it passes
 * `bufferBytes`) and written and fsynced by `flush()`, one fsync per flush. If a write or fsync fails, the journal
 * is broken for good: the failing `flush()` rejects with `journal_not_durable` (the OS error as cause) and so does
 * every later call. It never retries: after a failed fsync Linux may report the next one clean although the data is
 * lost.
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
  const lastSeq = existing?.at(-1)?.seq ?? 0;
  const makeFrame = createFrameFactory(frameOptions);
  return new FileJournal({ file, fd, fs, sync, makeFrame, writeDelayMs, bufferBytes, lastSeq });
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
};

class FileJournal implements Journal {
  readonly #deps: FileJournalDeps;
  #lastSeq: number;
  #durableSeq: number;
  #syncTarget: number;
  #chunks: string[] = [];
  #chunkChars = 0;
  // With a non-blocking port, every write and fsync runs in order on this chain; its links never reject.
  #queue: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #failure: { step: string; cause: unknown } | undefined;
  #closing: Promise<void> | undefined;
  #scratch: Buffer | undefined;

  constructor(deps: FileJournalDeps) {
    this.#deps = deps;
    this.#lastSeq = deps.lastSeq;
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
    if (this.#deps.sync === 'always') {
      this.#writeSync(line, seq);
      return frame;
    }
    this.#chunks.push(line);
    this.#chunkChars += line.length;
    if (this.#chunkChars >= this.#deps.bufferBytes) void this.#drain();
    else this.#timer ??= setTimeout(this.#onTimer, this.#deps.writeDelayMs).unref();
    return frame;
  }

  async flush(): Promise<void> {
    if (this.#failure) throw this.#refusal();
    const target = this.#lastSeq;
    if (target > this.#syncTarget) {
      this.#syncTarget = target;
      void this.#drain();
      if (this.#deps.fs.blocking) this.#syncNow(target);
      else this.#queue = this.#queue.then(() => this.#sync(target));
    }
    await this.#queue;
    if (this.#failure) throw this.#refusal();
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
      await this.#queue;
      await this.#deps.fs.close(this.#deps.fd).catch(() => undefined);
    }
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    void this.#drain();
  };

  #drain(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#chunks.length === 0) return this.#queue;
    const data = Buffer.from(this.#chunks.join(''), 'utf8');
    this.#chunks = [];
    this.#chunkChars = 0;
    if (this.#deps.fs.blocking) this.#writeNow(data);
    else this.#queue = this.#queue.then(() => this.#write(data));
    return this.#queue;
  }

  // With a blocking port, writes and fsyncs are made on the spot (the queue then stays empty); otherwise they run
  // in order on the queue. Either way a failure lands in #failure and the journal refuses everything after it.
  async #write(data: Uint8Array): Promise<void> {
    if (this.#failure) return;
    try {
      await writeAll(this.#deps.fs, this.#deps.fd, data);
    } catch (cause) {
      this.#failure = { step: 'write', cause };
    }
  }

  #writeNow(data: Uint8Array): void {
    if (this.#failure) return;
    try {
      writeAllSync(this.#deps.fs, this.#deps.fd, data);
    } catch (cause) {
      this.#failure = { step: 'write', cause };
    }
  }

  async #sync(target: number): Promise<void> {
    if (this.#failure) return;
    try {
      if (this.#deps.sync !== 'none') await this.#deps.fs.fsync(this.#deps.fd);
      this.#durableSeq = Math.max(this.#durableSeq, target);
    } catch (cause) {
      this.#failure = { step: 'fsync', cause };
    }
  }

  #syncNow(target: number): void {
    if (this.#failure) return;
    try {
      if (this.#deps.sync !== 'none') this.#deps.fs.fsyncSync(this.#deps.fd);
      this.#durableSeq = Math.max(this.#durableSeq, target);
    } catch (cause) {
      this.#failure = { step: 'fsync', cause };
    }
  }

  #writeSync(line: string, seq: number): void {
    const { fs, fd } = this.#deps;
    let step = 'write';
    try {
      writeAllSync(fs, fd, this.#encode(line));
      step = 'fsync';
      fs.fsyncSync(fd);
    } catch (cause) {
      this.#failure = { step, cause };
      throw this.#refusal();
    }
    this.#durableSeq = seq;
    this.#syncTarget = seq;
  }

  // Encodes into one reused buffer: with an fsync per append, each append runs on cold caches, where a fresh
  // allocation costs several µs against a floor of ~100 µs.
  #encode(line: string): Uint8Array {
    if (line.length * 3 > SCRATCH_BYTES) return Buffer.from(line, 'utf8');
    this.#scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES);
    return this.#scratch.subarray(0, this.#scratch.write(line, 0, 'utf8'));
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

async function readExisting(fs: DurableFs, file: string): Promise<EventFrame[] | undefined> {
  try {
    return (await readJournal(file, { repair: true, fs })).frames;
  } catch (error) {
    if (AgencyError.hasCode(error, 'path_not_found')) return undefined;
    throw error;
  }
}

// The fsync on open makes whatever an earlier process wrote but never synced durable before seq continues from it;
// a new file also needs its directory synced, or the file itself may vanish in a power loss.
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
      await fs.fsync(fd);
      if (created) await syncDir(fs, path.dirname(file));
    } catch (error) {
      await fs.close(fd).catch(() => undefined);
      throw error;
    }
    return fd;
  } catch (cause) {
    throw fileError('journal_not_durable', file, `opening the journal (${step})`, cause);
  }
}

async function syncDir(fs: DurableFs, dir: string): Promise<void> {
  const fd = await fs.open(dir, O_RDONLY | O_DIRECTORY);
  try {
    await fs.fsync(fd);
  } finally {
    await fs.close(fd);
  }
}
