import type { StateFile } from './contracts/state.ts';
import type { StateStore } from './state-store.ts';

/** Writes a run's state checkpoints behind it; see {@link createStateWriter}. */
export type StateWriter = {
  /**
   * Hands over the state as of a step boundary, to be written soon. @throws the error of an earlier write that
   * failed: the run learns of it at its next boundary.
   */
  submit(state: StateFile): void;
  /** Writes what is pending now and waits until it is written. @throws the first write error */
  settle(): Promise<void>;
};

/** Options for {@link createStateWriter}. */
export type StateWriterOptions = {
  /** The least time between two writes, unless the run's status changes. @default 100 */
  minIntervalMs?: number;
};

/**
 * Writes `state.json` behind the run, so a step never waits for it: the state is a checkpoint of the journal, which
 * the step has already made durable. At most one write is in flight, and writes are at least `minIntervalMs` apart
 * (a change of status, such as waiting for an approval, is written at once); states handed over meanwhile are
 * folded into the next write, which carries the latest. The copy is taken when the state is handed over, so it
 * always matches the journal up to its `last_seq`.
 *
 * @example
 * const writer = createStateWriter(createFileStateStore(progressDir));
 * writer.submit(state); // at a boundary, after the journal's flush
 * await writer.settle(); // before the run lets go of its folder
 */
export function createStateWriter(store: StateStore, { minIntervalMs = 100 }: StateWriterOptions = {}): StateWriter {
  let pending: StateFile | undefined;
  let running: Promise<void> | undefined;
  let failure: Error | undefined;
  let lastWrite = Number.NEGATIVE_INFINITY;
  let lastStatus: StateFile['status'] | undefined;
  let urgent = false;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms).unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (wake = undefined));
  const drain = async (): Promise<void> => {
    // A macrotask first: the checks and the serialization then run while the run waits on its next I/O.
    await new Promise((resolve) => setImmediate(resolve));
    while (pending !== undefined && failure === undefined) {
      const wait = lastWrite + minIntervalMs - performance.now();
      if (wait > 0 && !urgent) await pause(wait);
      const next = pending;
      pending = undefined;
      urgent = false;
      lastWrite = performance.now();
      lastStatus = next.status;
      await store.write(next).catch((error: unknown) => {
        failure = error instanceof Error ? error : new Error(String(error));
      });
    }
    running = undefined;
  };
  const hurry = () => {
    urgent = true;
    wake?.();
  };
  return {
    submit(state) {
      if (failure !== undefined) throw failure;
      pending = structuredClone(state);
      if (state.status !== lastStatus) hurry();
      running ??= drain();
    },
    async settle() {
      hurry();
      while (running) await running;
      if (failure !== undefined) throw failure;
    },
  };
}
