import type { TargetResult } from '../journal/report.ts';
import type { CapacityAssumptions, capacity, StatementCost } from './capacity.ts';
import type { StartLatency, Throughput } from './measure.ts';

/** One queue's figures: raw pg-boss in some shape, agency's fleet layer over it, or graphile-worker. */
export type EngineFigures = {
  name: string;
  /** `raw` for pg-boss itself, `agency` for the fleet layer, `reference` for graphile-worker. */
  role: 'raw' | 'agency' | 'reference';
  /** For `agency`: the name of the raw pg-boss row run with the same consumer shape, its baseline. */
  baseline?: string;
  detail: string;
  latency: StartLatency;
  throughput: Throughput;
  serverCpuMsPerJob: number;
};

/** What `bench/results/queue.json` holds. */
export type QueueReport = {
  benchmark: 'queue';
  mode: 'full' | 'quick';
  date: string;
  elapsedSeconds: number;
  machine: { cpus: number; cpuModel: string; loadAverage1m: number; node: string; platform: string };
  postgres: number;
  config: object;
  engines: EngineFigures[];
  costs: { heartbeat: StatementCost; emptyPoll: StatementCost; taskCpuMs: number; taskCpuFrom: string };
  assumptions: CapacityAssumptions;
  capacity: ReturnType<typeof capacity>;
  targets: typeof TARGETS;
  targetsMet: boolean[];
};

/** The targets: agency's fleet layer against raw pg-boss with the same consumers, in the same run. */
export const TARGETS = { throughputRatio: 0.9 } as const;

/** Every target, judged on `report`: each agency row against its baseline; every row's jobs all done. */
export function targetResults({ engines }: QueueReport): TargetResult[] {
  const results: TargetResult[] = [];
  for (const row of engines) {
    if (row.role !== 'agency') continue;
    const base = engines.find(({ name }) => name === row.baseline);
    const ratio = base ? row.throughput.completedPerSecond / base.throughput.completedPerSecond : 0;
    results.push({
      met: ratio >= TARGETS.throughputRatio,
      timing: true,
      text:
        `${row.name}: completed/s ≥ ${TARGETS.throughputRatio}× ${row.baseline ?? 'its baseline'} ` +
        `(${row.throughput.completedPerSecond} against ${base?.throughput.completedPerSecond ?? 'no figure'}; ` +
        `${ratio.toFixed(2)}×)`,
    });
    results.push({
      met: row.throughput.drained,
      timing: false,
      text: `${row.name}: all ${row.throughput.jobs} tasks completed (${row.throughput.completed})`,
    });
  }
  return results;
}

/** The figures as markdown tables and the capacity lines. */
export function reportLines({ engines, costs, assumptions, capacity: fits }: QueueReport): string[] {
  const engineRows = engines.map((row) => [
    row.name,
    row.detail,
    `${row.throughput.sentPerSecond}`,
    `${row.throughput.completedPerSecond}${row.throughput.drained ? '' : ` (${row.throughput.completed} of ${row.throughput.jobs} in the window)`}`,
    `${row.latency.p50Ms} / ${row.latency.p99Ms}`,
    `${row.serverCpuMsPerJob}`,
  ]);
  const cost = (label: string, figure: StatementCost) => [
    label,
    `${figure.serverCpuMsEach}`,
    `${figure.perSecond} (${figure.connections} connections)`,
    `${figure.latency.p50Ms} / ${figure.latency.p99Ms}`,
  ];
  return [
    '| Queue | Consumers | Sent/s | Completed/s | Enqueue → start p50 / p99 (ms) | Server CPU ms/job |',
    '|---|---|---:|---:|---:|---:|',
    ...engineRows.map((row) => `| ${row.join(' | ')} |`),
    '',
    '| Statement | Server CPU ms each | Per second | Alone p50 / p99 (ms) |',
    '|---|---:|---:|---:|',
    `| ${cost('heartbeat: UPDATE of a registry row', costs.heartbeat).join(' | ')} |`,
    `| ${cost('an idle poll: pg-boss `fetch` on an empty queue', costs.emptyPoll).join(' | ')} |`,
    '',
    `Capacity on paper (server CPU budget ${assumptions.serverCpuBudgetMsPerSecond} ms/s, heartbeats every ` +
      `${assumptions.heartbeatSeconds} s): ${fits.heartbeatsOnly} workers by heartbeats alone; ` +
      `${fits.withPollingAndTasks} with an idle poll every ${assumptions.idlePollSeconds} s and ` +
      `${assumptions.tasksPerWorkerPerHour} tasks an hour each at ${costs.taskCpuMs} ms per task ` +
      `(${costs.taskCpuFrom}), ${fits.workerCpuMsPerSecond} ms of server CPU per worker per second; ` +
      `${fits.withWakeups} when every task's NOTIFY wakes every idle worker to fetch.`,
  ];
}
