import type { StateFile } from './contracts/state.ts';
import type { StateStore } from './state-store.ts';

/** Writes a run's state checkpoints behind it; see {@link createStateWriter}. */
export type StateWriter = {
  /**
   * Hands over the state as of a step boundary, to be written soon. @throws the error of an earlier write that
   * failed: the run learns of it at its next boundary.
   */
  submit(state: StateFile): void;
  /** Waits until every submitted state is written. @throws the first write error */
  settle(): Promise<void>;
};

/**
 * Writes `state.json` behind the run, so a step never waits for it: the state is a checkpoint of the journal, which
 * the step has already made durable. At most one write is in flight; states submitted meanwhile are folded into the
 * next write, which carries the latest. The copy is taken when the state is submitted, so it always matches the
 * journal up to its `last_seq`.
 *
 * @example
 * const writer = createStateWriter(createFileStateStore(progressDir));
 * writer.submit(state); // at a boundary, after the journal's flush
 * await writer.settle(); // before the run lets go of its folder
 */
export function createStateWriter(store: StateStore): StateWriter {
  let pending: StateFile | undefined;
  let running: Promise<void> | undefined;
  let failure: Error | undefined;
  const drain = async (): Promise<void> => {
    // A macrotask first: the checks and the serialization then run while the run waits on its next I/O.
    await new Promise((resolve) => setImmediate(resolve));
    while (pending !== undefined && failure === undefined) {
      const next = pending;
      pending = undefined;
      await store.write(next).catch((error: unknown) => {
        failure = error instanceof Error ? error : new Error(String(error));
      });
    }
    running = undefined;
  };
  return {
    submit(state) {
      if (failure !== undefined) throw failure;
      pending = structuredClone(state);
      running ??= drain();
    },
    async settle() {
      while (running) await running;
      if (failure !== undefined) throw failure;
    },
  };
}
