import type { EventFrame, EventInput } from '../contracts/events.ts';
import type { TornTail } from './parse-journal.ts';

/**
 * The append-only event journal of a run (`progress/events.ndjson` by default), one `agent.events.v1` frame per
 * line: the log of the run, from which every other record of it is derived.
 *
 * Appends are buffered; `flush()` makes everything appended so far durable (written and fsynced). A frame counts as
 * *acknowledged* once a flush that covers it has resolved. The runner flushes at step boundaries, before any
 * side-effecting tool call and before any approval wait; flushes that overlap share one fsync (group commit).
 */
export type Journal = {
  /**
   * Assigns the frame its `version`, `id`, strictly increasing `seq` and `ts`, redacts it, and buffers it.
   * @throws AgencyError `journal_not_durable` once a write or fsync has failed: nothing is accepted after that.
   */
  append(event: EventInput): EventFrame;
  /**
   * Writes and fsyncs every buffered frame.
   * @throws AgencyError `journal_not_durable` (with the OS error, e.g. ENOSPC or EIO, as cause) if the write or
   * fsync fails. The journal is then broken for good: it never retries and then reports success.
   */
  flush(): Promise<void>;
  /**
   * The frames on record (flush first to include the latest), and the torn last line cut off when the journal was
   * opened, if there was one.
   */
  read(): Promise<{ frames: EventFrame[]; torn?: TornTail }>;
  /** The seq of the last frame appended. */
  readonly lastSeq: number;
  /** The seq of the last frame made durable. */
  readonly durableSeq: number;
  /** Flushes and releases the journal. */
  close(): Promise<void>;
};

/** How often the journal fsyncs. */
export type JournalSyncMode =
  /** On `flush()`: one fsync per group of flushes (the default). */
  | 'group'
  /** Never fsync; `flush()` only writes (for benchmarks and throwaway runs). */
  | 'none';
