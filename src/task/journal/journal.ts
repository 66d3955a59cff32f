import type { EventFrame, EventInput } from '../contracts/events.ts';

/**
 * The append-only event journal of a run (`progress/events.ndjson`), one `agent.events.v1` frame per line.
 *
 * Appends are buffered; `flush()` makes everything appended so far durable (written and fsynced). A frame counts as
 * *acknowledged* once a flush that covers it has resolved. The runner flushes at step boundaries, before any
 * side-effecting tool call and before any approval wait, so each step costs one fsync (group commit).
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
  /** The seq of the last frame appended. */
  readonly lastSeq: number;
  /** The seq of the last frame made durable. */
  readonly durableSeq: number;
  /** Flushes and releases the file. */
  close(): Promise<void>;
};

/** How often the journal fsyncs. */
export type JournalSyncMode =
  /** On `flush()` only: one fsync per step (the default). */
  | 'group'
  /** After every append (slow; for tests and paranoid setups). */
  | 'always'
  /** Never fsync; `flush()` only writes (for benchmarks and throwaway runs). */
  | 'none';
