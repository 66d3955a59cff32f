import type { CpuOptions } from './measure.ts';

/** What one mode of the benchmark measures. */
export type LoopConfig = {
  mode: 'full' | 'quick';
  cpu: CpuOptions;
  heap: { steps: number; resultBytes: number };
  construct: { agents: number };
  /** A child taking longer than this is killed and reported as failed. */
  childTimeoutMs: number;
};

export const FULL: LoopConfig = {
  mode: 'full',
  cpu: { sizes: [10, 100, 400], warmupMs: 1000, budgetMs: 1500, batchMs: 40, minBatches: 2 },
  heap: { steps: 400, resultBytes: 2048 },
  construct: { agents: 10_000 },
  childTimeoutMs: 90_000,
};

// Bounded for CI: short runs only, so the slowest peers finish in seconds; importing the peers is most of the time.
export const QUICK: LoopConfig = {
  mode: 'quick',
  cpu: { sizes: [10, 50], warmupMs: 1000, budgetMs: 200, batchMs: 20, minBatches: 2 },
  heap: { steps: 50, resultBytes: 2048 },
  construct: { agents: 1_000 },
  childTimeoutMs: 30_000,
};
