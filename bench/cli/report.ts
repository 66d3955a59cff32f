import type { TargetResult } from '../journal/report.ts';
import type { CaseFigure } from './measure.ts';

/** What `bench/results/cli.json` holds. */
export type CliReport = {
  benchmark: 'cli';
  mode: 'full' | 'quick';
  date: string;
  elapsedSeconds: number;
  machine: { cpus: number; cpuModel: string; loadAverage1m: number; node: string; platform: string };
  config: { runs: number; warmups: number };
  cases: CaseFigure[];
  /** Peer CLIs looked for in node_modules/.bin and not found there. */
  peersMissing: string[];
  targets: typeof TARGETS;
  targetsMet: boolean[];
};

/** The start-up targets, in ms of wall clock from spawn to exit (median). */
export const TARGETS = { helpMs: 150, statusMs: 150 } as const;

/** The figures as a markdown table, the floor first. */
export function reportLines(report: CliReport): string[] {
  const floor = report.cases.find((item) => item.id === 'floor');
  const rows = report.cases.map((item) => {
    const above = floor && item !== floor ? `+${(item.medianMs - floor.medianMs).toFixed(1)}` : '';
    return `| ${item.label} | ${item.medianMs} | ${item.p95Ms} | ${item.minMs} | ${above} | ${item.cpuMs ?? 'n/a'} |`;
  });
  return [
    '| Command | Median (ms) | p95 (ms) | Fastest (ms) | Median above the floor (ms) | CPU, mean (ms) |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
  ];
}

/** Every target of the CLI benchmark, judged on `report`: the timings, and that every command printed what it should. */
export function targetResults(report: CliReport): TargetResult[] {
  const byId = new Map(report.cases.map((item) => [item.id, item]));
  const timing = (id: string, limit: number): TargetResult => {
    const item = byId.get(id);
    const median = item?.medianMs ?? Number.POSITIVE_INFINITY;
    return { met: median <= limit, timing: true, text: `${item?.label ?? id} ≤ ${limit} ms (median ${median} ms)` };
  };
  const failed = report.cases.filter((item) => item.failure !== undefined);
  return [
    timing('help', TARGETS.helpMs),
    timing('status-fresh', TARGETS.statusMs),
    timing('status-finished', TARGETS.statusMs),
    {
      met: failed.length === 0,
      timing: false,
      text:
        failed.length === 0
          ? 'every command exited 0 and printed what it should'
          : `every command exited 0 and printed what it should (${failed.map((item) => `${item.label}: ${item.failure}`).join('; ')})`,
    },
  ];
}
