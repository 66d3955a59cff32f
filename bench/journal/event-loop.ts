import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createRunner } from '../../src/task/runner.ts';
import { fixtureTools, makeTaskFolder, phaseModel } from '../../test/support/governed-fixture.ts';
import { round } from './raw-floor.ts';

/** The event loop's delay while governed runs share one process. */
export type EventLoopFigures = {
  runsAtOnce: number;
  rounds: number;
  /** Durable steps (phase.finish frames) the runs made, all rounds together. */
  steps: number;
  wallMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The same process idle for as long, right before: what the machine itself adds (other processes, the OS). */
  idleP99Ms: number;
};

/**
 * Starts `runsAtOnce` governed runs of the fixture task (Gather → Plan → Act → Verify, zero-latency scripted models,
 * auto approvals) at once in this process, `rounds` times, and samples the event loop's delay the whole time
 * (`monitorEventLoopDelay`, 1 ms resolution), after one warm-up round. The same process idle for a while before is
 * the reference.
 */
export async function measureEventLoop({ runsAtOnce = 8, rounds = 3 } = {}): Promise<EventLoopFigures> {
  // A warm-up round first: a long-lived process has loaded its modules and compiled its hot code long before.
  await runRound(runsAtOnce);
  const idle = monitorEventLoopDelay({ resolution: 1 });
  idle.enable();
  await new Promise((resolve) => setTimeout(resolve, 1000 * rounds));
  idle.disable();
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let steps = 0;
  const started = performance.now();
  histogram.enable();
  try {
    for (let round = 0; round < rounds; round++) steps += await runRound(runsAtOnce);
  } finally {
    histogram.disable();
  }
  const ms = (ns: number) => round(ns / 1e6, 2);
  return {
    runsAtOnce,
    rounds,
    steps,
    wallMs: round(performance.now() - started, 0),
    p50Ms: ms(histogram.percentile(50)),
    p99Ms: ms(histogram.percentile(99)),
    maxMs: ms(histogram.max),
    idleP99Ms: ms(idle.percentile(99)),
  };
}

// One round: `runsAtOnce` fixture runs started together in one runner; returns their durable steps.
async function runRound(runsAtOnce: number): Promise<number> {
  const roots = await Promise.all(Array.from({ length: runsAtOnce }, () => makeTaskFolder()));
  const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' });
  const results = await Promise.all(roots.map((root) => runner.doTask(root, {}, { view: 'full' })));
  let steps = 0;
  for (const result of results) {
    if (result.finishReason !== 'completed') throw new Error(`a run ended ${result.finishReason}`);
    steps += result.steps?.length ?? 0;
  }
  return steps;
}
