import type { TargetResult } from '../journal/report.ts';
import type { measureDispatch, measureOneShotScan, measurePolling, measureTimeToSee } from './measure.ts';

/** What `bench/results/fleet.json` holds. */
export type FleetReport = {
  benchmark: 'fleet';
  mode: 'full' | 'quick';
  date: string;
  elapsedSeconds: number;
  machine: { cpus: number; cpuModel: string; loadAverage1m: number; node: string; platform: string };
  worker: string;
  command: string[];
  config: object;
  dispatch: Awaited<ReturnType<typeof measureDispatch>>;
  scan: Awaited<ReturnType<typeof measureOneShotScan>>;
  timeToSee: Awaited<ReturnType<typeof measureTimeToSee>>;
  polling: Awaited<ReturnType<typeof measurePolling>>;
  targets: typeof TARGETS;
  targetsMet: boolean[];
};

/** The targets: dispatch against spawning the executor directly, and discovery's reach and cost. */
export const TARGETS = {
  dispatchRatio: 1.2,
  dispatchSlackMs: 2,
  scanMs: 250,
  timeToSeeMs: 6000,
  pollingPace: 0.2,
  pollingCpuPercent: 5,
} as const;

/** Every target, judged on `report`. */
export function targetResults({ dispatch, scan, timeToSee, polling }: FleetReport): TargetResult[] {
  const bound = (floor: number) => Math.round((floor * TARGETS.dispatchRatio + TARGETS.dispatchSlackMs) * 1000) / 1000;
  const pace = Math.abs(polling.pollsPerSecond - polling.expectedPollsPerSecond) / polling.expectedPollsPerSecond;
  return [
    ...(['p50Ms', 'p99Ms'] as const).map((key) => ({
      met: dispatch.worker[key] <= bound(dispatch.floor[key]),
      timing: true,
      text:
        `submit → turn over ${key.slice(0, 3)} ≤ ${TARGETS.dispatchRatio}× spawning the executor directly + ` +
        `${TARGETS.dispatchSlackMs} ms (${dispatch.worker[key]} ms against ${dispatch.floor[key]} ms; bound ${bound(dispatch.floor[key])} ms)`,
    })),
    {
      met: scan.p50Ms <= TARGETS.scanMs,
      timing: true,
      text: `one discovery of ${scan.ports} ports ≤ ${TARGETS.scanMs} ms (median ${scan.medianMs} ms, p99 ${scan.p99Ms} ms)`,
    },
    {
      met: timeToSee.maxMs <= TARGETS.timeToSeeMs,
      timing: true,
      text: `a running discovery sees a new worker within ${TARGETS.timeToSeeMs / 1000} s (median ${timeToSee.medianMs} ms, max ${timeToSee.maxMs} ms over ${timeToSee.samples})`,
    },
    {
      met: pace <= TARGETS.pollingPace && polling.unhealthy === 0,
      timing: false,
      text: `${polling.workers} workers polled at the adaptive pace (${polling.pollsPerSecond} polls/s, expected ${polling.expectedPollsPerSecond}; ${polling.unhealthy} not green)`,
    },
    {
      met: polling.cpuPercentOfCore <= TARGETS.pollingCpuPercent,
      timing: true,
      text: `polling ${polling.workers} workers costs ≤ ${TARGETS.pollingCpuPercent}% of a core (${polling.cpuPercentOfCore}%; event-loop delay p99 ${polling.eventLoopP99Ms} ms)`,
    },
  ];
}

/** The figures as a markdown table. */
export function reportLines({ dispatch, scan, timeToSee, polling }: FleetReport): string[] {
  const rows: [string, string, string][] = [
    [
      'spawn the executor directly (the floor)',
      `${dispatch.floor.p50Ms} / ${dispatch.floor.p99Ms}`,
      `${dispatch.floor.runs} runs`,
    ],
    [
      'submit → turn over, through the worker',
      `${dispatch.worker.p50Ms} / ${dispatch.worker.p99Ms}`,
      `${dispatch.worker.runs} runs, taking turns with the floor; polled back to back`,
    ],
    [
      'the same, as `agency task` follows it',
      `${dispatch.director.p50Ms} / ${dispatch.director.p99Ms}`,
      `${dispatch.director.runs} runs; its first poll comes at 100 ms`,
    ],
    [
      `one discovery of ${scan.ports} ports`,
      `${scan.p50Ms} / ${scan.p99Ms}`,
      `${scan.runs} runs: TCP probes, then /status of the 2 workers found`,
    ],
    [
      'a running discovery sees a new worker',
      `${timeToSee.medianMs} / ${timeToSee.maxMs} (max)`,
      `${timeToSee.samples} workers started at random moments; scans every 5 s: ${timeToSee.times.join(', ')} ms`,
    ],
    [
      `polling ${polling.workers} workers, ${polling.working} working`,
      `${polling.cpuMsPerSecond} ms CPU/s`,
      `${polling.pollsPerSecond} polls/s (${polling.expectedPollsPerSecond} expected); ${polling.cpuPercentOfCore}% of a core; event-loop p99 ${polling.eventLoopP99Ms} ms; over ${polling.seconds} s`,
    ],
  ];
  return ['| Measure | p50 / p99 (ms) | Detail |', '|---|---:|---|', ...rows.map((row) => `| ${row.join(' | ')} |`)];
}
