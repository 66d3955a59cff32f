/**
 * Latency figures of one query kind, in ms: wall-clock p50 and p95, and the p50 of the CPU time this process spent
 * on a query (user + system). On a loaded machine the wall time includes waiting for a core; the CPU time does not,
 * and for an in-process store (SQLite, LangGraph InMemoryStore) it is the query's own cost. A PostgreSQL query's
 * work is mostly in the server, so its CPU figure is only the client's part.
 */
export type Latency = { runs: number; p50: number; p95: number; cpuP50: number };

/** Runs `query` `runs` times (after `warmups`) and reports p50 and p95 in ms, and the CPU time p50. */
export async function latency(runs: number, warmups: number, query: (i: number) => Promise<unknown>): Promise<Latency> {
  for (let i = 0; i < warmups; i++) await query(-1 - i);
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    await query(i);
    times.push(performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  const at = (list: number[], q: number) => {
    const sorted = [...list].sort((a, b) => a - b);
    return Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number).toFixed(2));
  };
  return { runs, p50: at(times, 0.5), p95: at(times, 0.95), cpuP50: at(cpu, 0.5) };
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
