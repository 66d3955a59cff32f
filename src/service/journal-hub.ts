import { AgencyError } from '../core/errors.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import { followJournal } from '../task/journal/follow-journal.ts';

/** How many of the latest frames a followed journal keeps for subscribers joining or falling behind. */
const WINDOW = 10_000;

type Tail = {
  /** The frames appended since the journal was first followed (the latest WINDOW of them), in seq order. */
  frames: EventFrame[];
  waiting: Set<() => void>;
  subscribers: number;
  failure: unknown;
  ended: boolean;
  controller: AbortController;
  /** The last seq on file when following began: a subscriber past it only waits for shared frames. */
  startSeq: Promise<number>;
};

/**
 * Follows each journal's new frames once, however many clients stream it: one reader per file for what is appended
 * while anyone watches, handed to every subscriber, so a task watched by a hundred browsers costs one read and one
 * parse per new frame, not a hundred. What a subscriber asks for from before (its backlog, or frames it fell too far
 * behind on) it reads from the file itself, then it joins the shared frames.
 */
export type JournalHub = {
  /** The frames of `file` after seq `after`, then new ones as they are appended, until `signal` aborts. */
  follow(file: string, after: number, signal: AbortSignal): AsyncIterable<EventFrame>;
};

/** Creates a hub; a followed file is released when its last subscriber leaves. */
export function createJournalHub(): JournalHub {
  const tails = new Map<string, Tail>();

  const open = (file: string): Tail => {
    const existing = tails.get(file);
    if (existing) return existing;
    const tail = startTail(file);
    tails.set(file, tail);
    return tail;
  };

  const release = (file: string, tail: Tail) => {
    tail.subscribers--;
    if (tail.subscribers > 0) return;
    tail.controller.abort();
    tails.delete(file);
  };

  return {
    async *follow(file, after, signal) {
      const tail = open(file);
      tail.subscribers++;
      let next = after + 1;
      try {
        const startSeq = await tail.startSeq;
        while (!signal.aborted) {
          // Before the shared frames (or before any is shared, for frames already on file): from the file, until the
          // shared frames take over.
          const first = tail.frames[0]?.seq;
          if (first === undefined ? next <= startSeq : first > next) {
            for await (const frame of fromFile(file, next - 1, tail, signal)) {
              yield frame;
              next = frame.seq + 1;
            }
            if (signal.aborted) return;
            continue;
          }
          // The shared frames move while this subscriber is suspended: its place is found again each time.
          const index = firstAtOrAfter(tail.frames, next);
          if (index < tail.frames.length) {
            const frame = tail.frames[index]!;
            next = frame.seq + 1;
            yield frame;
            continue;
          }
          if (tail.failure) throw AgencyError.from(tail.failure);
          if (tail.ended) return;
          await changed(tail, signal);
        }
      } finally {
        release(file, tail);
      }
    },
  };
}

// Starts the one reader of a file's new frames, which keeps the latest WINDOW of them for every subscriber.
function startTail(file: string): Tail {
  let started: (seq: number) => void = () => {};
  const tail: Tail = {
    frames: [],
    waiting: new Set(),
    subscribers: 0,
    failure: undefined,
    ended: false,
    controller: new AbortController(),
    startSeq: new Promise<number>((resolve) => (started = resolve)),
  };
  void (async () => {
    try {
      const live = followJournal(file, {
        signal: tail.controller.signal,
        pollIntervalMs: 100,
        fromEnd: true,
        onStart: started,
      });
      for await (const frame of live) {
        tail.frames.push(frame);
        if (tail.frames.length > 2 * WINDOW) tail.frames.splice(0, tail.frames.length - WINDOW);
        wake(tail);
      }
    } catch (error) {
      tail.failure = error;
    }
    started(0);
    tail.ended = true;
    wake(tail);
  })();
  return tail;
}

// Reads the file from `after` until it reaches the frames the tail shares (it follows on alone until then).
async function* fromFile(file: string, after: number, tail: Tail, signal: AbortSignal): AsyncGenerator<EventFrame> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const frame of followJournal(file, { fromSeq: after, signal: controller.signal, pollIntervalMs: 100 })) {
      const first = tail.frames[0]?.seq;
      if (first !== undefined && first <= frame.seq) return;
      yield frame;
    }
  } finally {
    signal.removeEventListener('abort', stop);
    controller.abort();
  }
}

// The index of the first frame with a seq at or after `seq` (frames are in seq order).
function firstAtOrAfter(frames: readonly EventFrame[], seq: number): number {
  let low = 0;
  let high = frames.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (frames[middle]!.seq < seq) low = middle + 1;
    else high = middle;
  }
  return low;
}

function changed(tail: Tail, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      tail.waiting.delete(done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    tail.waiting.add(done);
    signal.addEventListener('abort', done, { once: true });
  });
}

function wake(tail: Tail): void {
  for (const resolve of [...tail.waiting]) resolve();
}
