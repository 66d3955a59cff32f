/** The most tool calls of one response that run at the same time. */
export const MAX_PARALLEL_TOOLS = 10;

/**
 * Runs `work` for every index in `pending` on a pool of `min(pending.length, 10)` workers pulling from a shared
 * queue, and resolves when all have finished. A single call runs inline, without the pool. `work` must not throw.
 */
export function runPool(pending: readonly number[], work: (index: number) => Promise<void>): Promise<void> {
  return pending.length === 1 ? work(pending[0] as number) : runQueue(pending, work);
}

async function runQueue(pending: readonly number[], work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < pending.length) {
      const index = pending[next++] as number;
      await work(index);
    }
  };
  const workers = Math.min(pending.length, MAX_PARALLEL_TOOLS);
  await Promise.all(Array.from({ length: workers }, worker));
}
