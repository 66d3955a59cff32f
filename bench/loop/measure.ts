import type { Adapter } from './adapter.ts';
import { checkRun, createScript, transcriptBytes } from './script.ts';

/** CPU per step at one run length: the median of several batches, with the spread. */
export type CpuFigure = { steps: number; usPerStep: number; min: number; max: number; batches: number; runs: number };
export type HeapFigure = {
  steps: number;
  resultBytes: number;
  retainedBytes: number;
  transcriptBytes: number;
  /** `retainedBytes / transcriptBytes`. */
  ratio: number;
  /** Growth of `external` memory (buffers), reported apart from the heap. */
  externalBytes: number;
};
export type ConstructFigure = { agents: number; usPerAgent: number; wallUsPerAgent: number; bytesPerAgent: number };

export type CpuOptions = { sizes: number[]; warmupMs: number; budgetMs: number; batchMs: number; minBatches: number };

const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/**
 * CPU time per tool step, counting everything the process spends (framework, scripted model, tool, GC threads).
 * After a warm-up at every size, runs are grouped in batches of at least `batchMs` of CPU; each size gets batches
 * until `budgetMs` is spent and at least `minBatches` were taken, and reports the median batch.
 */
export async function measureCpu(adapter: Adapter, id: string, options: CpuOptions): Promise<CpuFigure[]> {
  const script = createScript();
  const maxSteps = Math.max(...options.sizes);
  const agent = await adapter.prepare(script, maxSteps);
  const runOnce = async (steps: number) => {
    script.reset(steps);
    const result = await agent.run();
    checkRun(script, steps, id);
    return result;
  };
  // Warm-up: the smaller sizes until `warmupMs` of CPU, so the JIT has compiled the loop before any figure is taken.
  const warmSizes = options.sizes.filter((steps) => steps <= 100);
  const warmStart = cpuNow();
  do for (const steps of warmSizes) await runOnce(steps);
  while (cpuNow() - warmStart < options.warmupMs * 1000);

  const figures: CpuFigure[] = [];
  for (const steps of options.sizes) {
    const batches: number[] = [];
    let spent = 0;
    let runs = 0;
    while (batches.length < options.minBatches || spent < options.budgetMs * 1000) {
      let batchRuns = 0;
      const start = cpuNow();
      let used: number;
      do {
        await runOnce(steps);
        batchRuns++;
        used = cpuNow() - start;
      } while (used < options.batchMs * 1000);
      batches.push(used / (batchRuns * steps));
      spent += used;
      runs += batchRuns;
    }
    batches.sort((a, b) => a - b);
    figures.push({
      steps,
      usPerStep: median(batches),
      min: batches[0] as number,
      max: batches.at(-1) as number,
      batches: batches.length,
      runs,
    });
  }
  return figures;
}

/**
 * The heap a finished run keeps while its result is referenced: heap used after a forced GC, minus heap used before
 * the run (after a warm-up run of up to 100 steps, whose result is dropped, and a forced GC). Every tool result is a
 * fresh string of `resultBytes`.
 */
export async function measureHeap(
  adapter: Adapter,
  id: string,
  steps: number,
  resultBytes: number,
): Promise<HeapFigure> {
  const script = createScript(resultBytes);
  const agent = await adapter.prepare(script, steps);
  script.reset(Math.min(steps, 100));
  await agent.run();
  const before = await settledMemory();
  script.reset(steps);
  const result = await agent.run();
  checkRun(script, steps, id);
  const after = await settledMemory();
  keep(result);
  const transcript = transcriptBytes(steps, resultBytes);
  const retainedBytes = after.heapUsed - before.heapUsed;
  return {
    steps,
    resultBytes,
    retainedBytes,
    transcriptBytes: transcript,
    ratio: retainedBytes / transcript,
    externalBytes: after.external - before.external,
  };
}

/**
 * The CPU time and heap to build `count` agents with one tool each, all kept referenced. The tool and the model are
 * built once and shared, as an application defines its tools once.
 */
export async function measureConstruct(adapter: Adapter, count: number): Promise<ConstructFigure> {
  const build = await adapter.factory(createScript());
  keep(Array.from({ length: Math.min(count, 500) }, build));
  const agents: unknown[] = new Array(count);
  const before = await settledMemory();
  const cpuStart = cpuNow();
  const wallStart = performance.now();
  for (let index = 0; index < count; index++) agents[index] = build();
  const wallUs = (performance.now() - wallStart) * 1000;
  const cpuUs = cpuNow() - cpuStart;
  const after = await settledMemory();
  keep(agents);
  return {
    agents: count,
    usPerAgent: cpuUs / count,
    wallUsPerAgent: wallUs / count,
    bytesPerAgent: (after.heapUsed - before.heapUsed) / count,
  };
}

async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  const gc = globalThis.gc;
  if (!gc) throw new Error('Run with node --expose-gc');
  for (let round = 0; round < 3; round++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return process.memoryUsage();
}

// A sink the optimizer cannot see through, so measured objects stay alive until the figure is taken.
const kept: unknown[] = [];
function keep(value: unknown): void {
  kept.push(value);
}

function median(sorted: number[]): number {
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
