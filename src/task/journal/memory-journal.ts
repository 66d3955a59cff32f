import { AgencyError } from '../../core/errors.ts';
import type { EventFrame, EventInput } from '../contracts/events.ts';
import { createFrameFactory, type FrameFactoryOptions } from './frame-factory.ts';
import type { Journal } from './journal.ts';

/** A {@link Journal} kept in memory, for tests. */
export type MemoryJournal = Journal & {
  /** Every frame appended, in order (the redacted frames, as a file journal would write them). */
  readonly frames: readonly EventFrame[];
  /** The frames a flush has acknowledged: those with `seq <= durableSeq`. */
  readonly durableFrames: readonly EventFrame[];
  /** Makes the next flush fail as a full or broken disk would: the journal is then broken for good. */
  failNextFlush(cause?: unknown): void;
};

/**
 * An in-memory journal that behaves like the file journal: seq, redaction, acknowledgement on `flush()`, and
 * `journal_not_durable` for good after a (simulated) disk failure.
 *
 * @example
 * const journal = createMemoryJournal({ now: () => 0 });
 * journal.append({ type: 'warning', message: 'x' }); await journal.flush(); journal.durableFrames.length // 1
 */
export function createMemoryJournal(options: FrameFactoryOptions & { lastSeq?: number } = {}): MemoryJournal {
  const { lastSeq: startSeq = 0, ...frameOptions } = options;
  const makeFrame = createFrameFactory(frameOptions);
  const frames: EventFrame[] = [];
  let lastSeq = startSeq;
  let durableSeq = startSeq;
  let pendingFailure: unknown;
  let failure: unknown;
  let closed = false;

  const refusal = () =>
    new AgencyError('journal_not_durable', `memory journal: a flush failed; frames after seq ${durableSeq} are lost`, {
      cause: failure,
      details: { last_seq: lastSeq, durable_seq: durableSeq },
    });

  const flush = async (): Promise<void> => {
    if (failure !== undefined) throw refusal();
    if (pendingFailure !== undefined && lastSeq > durableSeq) {
      failure = pendingFailure;
      throw refusal();
    }
    durableSeq = lastSeq;
  };

  return {
    get frames() {
      return frames;
    },
    get durableFrames() {
      return frames.filter((frame) => frame.seq <= durableSeq);
    },
    get lastSeq() {
      return lastSeq;
    },
    get durableSeq() {
      return durableSeq;
    },
    append(event: EventInput): EventFrame {
      if (failure !== undefined) throw refusal();
      if (closed) throw new AgencyError('internal', 'memory journal: the journal is closed');
      const frame = makeFrame(event, lastSeq + 1);
      // A deep copy, as a file journal would hold bytes: later changes to the caller's objects do not leak in.
      frames.push(structuredClone(frame));
      lastSeq += 1;
      return frame;
    },
    flush,
    async close() {
      closed = true;
      await flush();
    },
    failNextFlush(cause: unknown = new Error('EIO: i/o error (simulated)')) {
      pendingFailure = cause;
    },
  };
}
