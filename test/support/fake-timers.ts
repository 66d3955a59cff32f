// Timers a test moves by hand: `advance(ms)` runs every callback that falls due, in time order, and lets the
// promises they start settle between callbacks. No test waits for real time.
import type { Timers } from '../../src/core/clock.ts';

/** Fake {@link Timers} with `advance`. */
export type FakeTimers = Timers & {
  advance(ms: number): Promise<void>;
  /** Callbacks not yet run. */
  pending(): number;
};

/** Fake timers starting at `start` ms. */
export function createFakeTimers(start = 1_000_000): FakeTimers {
  let now = start;
  let nextId = 1;
  const due = new Map<number, { at: number; callback: () => void }>();
  return {
    now: () => now,
    setTimeout(callback, ms) {
      const id = nextId++;
      due.set(id, { at: now + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout(handle) {
      due.delete(handle as number);
    },
    pending: () => due.size,
    async advance(ms) {
      const until = now + ms;
      for (;;) {
        await flush();
        const next = [...due.entries()].filter(([, timer]) => timer.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!next) break;
        due.delete(next[0]);
        now = next[1].at;
        next[1].callback();
      }
      now = until;
      await flush();
    },
  };
}

// Lets pending promise chains (a poll's fetch and parse) run to their end. setImmediate comes after every microtask
// and after I/O callbacks that are ready; a few turns cover a fetch through a fake.
async function flush(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
}
