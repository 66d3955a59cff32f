/** Latency figures of one query kind, in ms. */
export type Latency = { runs: number; p50: number; p95: number };

/** Runs `query` `runs` times (after `warmups`) and reports p50 and p95 in ms. */
export async function latency(runs: number, warmups: number, query: (i: number) => Promise<unknown>): Promise<Latency> {
  for (let i = 0; i < warmups; i++) await query(-1 - i);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await query(i);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    Number((times[Math.min(times.length - 1, Math.floor(q * times.length))] as number).toFixed(2));
  return { runs, p50: at(0.5), p95: at(0.95) };
}

/**
 * Writes `count` entries in batches of `batch` (`write(from, to)` writes entries `from` … `to - 1`), `concurrency`
 * batches at a time, and returns entries per second.
 */
export async function load(
  count: number,
  batch: number,
  write: (from: number, to: number) => Promise<unknown>,
  concurrency = 1,
): Promise<number> {
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const from = next;
        next = Math.min(count, next + batch);
        await write(from, next);
      }
    }),
  );
  return Math.round(count / ((performance.now() - start) / 1000));
}

/** {@link latency} of a query that says whether it returned the right entries; a wrong answer fails the run. */
export async function checked(runs: number, query: (i: number) => Promise<boolean>): Promise<Latency> {
  return latency(runs, 3, async (i) => {
    if (!(await query(Math.abs(i)))) throw new Error('a benchmark query returned the wrong entries');
  });
}
