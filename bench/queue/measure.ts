import { spread } from '../fleet/measure.ts';
import { load } from '../memory/measure.ts';
import type { QueueEngine } from './engines.ts';

/** Jobs per second sent and completed by one engine, and whether the backlog drained within the time allowed. */
export type Throughput = {
  jobs: number;
  senders: number;
  sentPerSecond: number;
  completedPerSecond: number;
  completed: number;
  drained: boolean;
};

/** Enqueue → start latency of one engine, in ms. */
export type StartLatency = { p50Ms: number; p99Ms: number; runs: number };

/** An engine started with a probe that resolves a waiter when the handler begins job `n`. */
export type Probed = { engine: QueueEngine; started(n: number): Promise<number>; stop(): Promise<void> };

/** Starts `engine` with a probe that timestamps each job's start. */
export async function probe(engine: QueueEngine): Promise<Probed> {
  const waiting = new Map<number, (at: number) => void>();
  const early = new Map<number, number>();
  await engine.start((n) => {
    const at = performance.now();
    const resolve = waiting.get(n);
    if (resolve) {
      waiting.delete(n);
      resolve(at);
    } else if (n >= 0) early.set(n, at);
  });
  return {
    engine,
    started: (n) => {
      if (engine.startedAt) return engine.startedAt(n);
      const at = early.get(n);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve) => waiting.set(n, resolve));
    },
    stop: () => engine.stop(),
  };
}

/**
 * One job at a time: enqueue, wait for its handler to begin, then a random pause of up to `maxGapMs` so that jobs
 * arrive at random moments of a polling consumer's cycle. Job numbers start at `from`.
 */
export async function measureLatency(
  probed: Probed,
  { runs, from, maxGapMs, timeoutMs }: { runs: number; from: number; maxGapMs: number; timeoutMs: number },
): Promise<StartLatency> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const n = from + i;
    const sentAt = performance.now();
    await probed.engine.send(n);
    const startedAt = await withTimeout(probed.started(n), timeoutMs, `${probed.engine.name}: job ${n} never started`);
    times.push(startedAt - sentAt);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * maxGapMs));
  }
  return spread(times);
}

/**
 * `jobs` jobs sent by `senders` concurrent loops as fast as the queue takes them; then the completions are counted
 * until all are done or `windowMs` after the first send has passed. Job numbers start at `from`.
 */
export async function measureThroughput(
  probed: Probed,
  { jobs, senders, from, windowMs }: { jobs: number; senders: number; from: number; windowMs: number },
): Promise<Throughput> {
  const before = await probed.engine.completed();
  const started = performance.now();
  await load(jobs, 1, (i) => probed.engine.send(from + i), senders);
  const sentSeconds = (performance.now() - started) / 1000;
  let completed = 0;
  while (performance.now() - started < windowMs) {
    completed = (await probed.engine.completed()) - before;
    if (completed >= jobs) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    jobs,
    senders,
    sentPerSecond: Math.round(jobs / sentSeconds),
    completedPerSecond: Math.round(completed / seconds),
    completed,
    drained: completed >= jobs,
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
