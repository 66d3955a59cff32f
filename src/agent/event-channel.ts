/**
 * A single-consumer async queue. Pushing never waits, so a producer is never blocked by a consumer that stopped
 * reading; when the consumer ends the iteration early, `onReturn` runs (the agent uses it to stop the run).
 */
export function createEventChannel<T>(onReturn: () => void) {
  const buffer: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | undefined;
  let closed = false;
  let iterating = false;

  const iterator: AsyncIterator<T> = {
    next() {
      const value = buffer.shift();
      if (value !== undefined) return Promise.resolve({ value, done: false });
      if (closed) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    return() {
      const wasOpen = !closed;
      closed = true;
      buffer.length = 0;
      if (wasOpen) onReturn();
      return Promise.resolve({ value: undefined, done: true });
    },
  };

  return {
    push(value: T): void {
      if (closed) return;
      if (waiting) {
        const resolve = waiting;
        waiting = undefined;
        resolve({ value, done: false });
      } else {
        buffer.push(value);
      }
    },
    close(): void {
      closed = true;
      if (waiting) {
        const resolve = waiting;
        waiting = undefined;
        resolve({ value: undefined, done: true });
      }
    },
    iterable: {
      [Symbol.asyncIterator]() {
        if (iterating) throw new Error('An agent stream can be iterated only once');
        iterating = true;
        return iterator;
      },
    } as AsyncIterable<T>,
  };
}
