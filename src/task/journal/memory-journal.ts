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

/** Options for {@link createMemoryJournal}. */
export type MemoryJournalOptions = FrameFactoryOptions & {
  /** The frames already on record, e.g. the `durableFrames` of a journal a crashed run left. @default [] */
  frames?: readonly EventFrame[];
};

/**
 * An in-memory journal that behaves like the file journal: seq, redaction, acknowledgement on `flush()`, and
 * `journal_not_durable` for good after a (simulated) disk failure. A runner can keep its journals this way
 * (`createRunner({ journal: … })`); a resumed run opens a new one from the old one's `durableFrames`.
 *
 * @example
 * const journal = createMemoryJournal({ now: () => 0 });
 * journal.append({ type: 'warning', message: 'x' }); await journal.flush(); journal.durableFrames.length // 1
 */
export function createMemoryJournal({
  frames: earlier = [],
  ...frameOptions
}: MemoryJournalOptions = {}): MemoryJournal {
  const makeFrame = createFrameFactory(frameOptions);
  const frames: EventFrame[] = structuredClone([...earlier]);
  const startSeq = frames.at(-1)?.seq ?? 0;
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
    async read() {
      return { frames: structuredClone(frames.filter((frame) => frame.seq <= durableSeq)) };
    },
    async close() {
      closed = true;
      await flush();
    },
    failNextFlush(cause: unknown = new Error('EIO: i/o error (simulated)')) {
      pendingFailure = cause;
    },
  };
}
