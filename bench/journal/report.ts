import type { DurableStepFigures } from './durable-step.ts';
import type { EventLoopFigures } from './event-loop.ts';
import type { AppendFigure, GroupCommitFigure } from './measure.ts';
import type { PeerFigures } from './peers.ts';

/** What `bench/results/journal.json` holds. */
export type JournalReport = {
  benchmark: 'journal';
  mode: 'full' | 'quick';
  date: string;
  elapsedSeconds: number;
  machine: { cpus: number; cpuModel: string; loadAverage1m: number; node: string; platform: string };
  disk: { dir: string; filesystem: string };
  config: object;
  append: AppendFigure;
  groupCommit: GroupCommitFigure;
  durableStep: DurableStepFigures;
  eventLoop: EventLoopFigures;
  /** Absent when PostgreSQL could not be started; `peersSkipped` says why. */
  peers?: PeerFigures;
  peersSkipped?: string;
  targets: typeof TARGETS;
  targetsMet: boolean[];
};

/** The targets the durability layer is held to. */
export const TARGETS = {
  appendUs: 3,
  fsyncsPerStep: 1,
  durableStepRatio: 1.25,
  eventLoopP99Ms: 5,
  peerRatio: 0.3,
} as const;

/** The figures as a markdown table. */
export function reportLines(report: JournalReport): string[] {
  const { append, groupCommit, durableStep: step, eventLoop } = report;
  const rows: [string, string, string][] = [
    [
      'append, unsynced (CPU µs/event)',
      `${append.appendCpuUs}`,
      `${append.frameBytes}-byte frames, ${append.events} events; wall clock ${append.appendWallUs} µs ` +
        `(best batch ${append.appendBestWallUs} µs); with the buffered writes ${append.appendAndWriteUs} µs`,
    ],
    [
      'group commit (fsyncs/step)',
      `${groupCommit.fsyncsPerStep}`,
      `${groupCommit.eventsPerStep} appends + 1 flush: ${groupCommit.stepUs} µs/step`,
    ],
    [
      'durable no-op step ÷ raw write+fsync',
      `${step.ratio}×`,
      `${step.eventsPerStep} frames + commit + state checkpoint: ${step.stepUs} µs/step against ${step.rawUs} µs raw ` +
        `(p10–p90 ${step.rawP10Us}–${step.rawP90Us} µs), paired difference ${signed(step.overheadUs)} µs ` +
        `(medians of ${step.steps / step.blockSteps} blocks of ${step.blockSteps} steps); ${step.fsyncsPerStep} fsync/step`,
    ],
    [
      `event-loop delay, ${eventLoop.runsAtOnce} governed runs at once (p99 ms)`,
      `${eventLoop.p99Ms}`,
      `p50 ${eventLoop.p50Ms} ms, max ${eventLoop.maxMs} ms; ${eventLoop.rounds} round(s), ${eventLoop.steps} durable steps ` +
        `in ${eventLoop.wallMs} ms; the process idle: p99 ${eventLoop.idleP99Ms} ms`,
    ],
  ];
  const lines = ['| Measure | Figure | Detail |', '|---|---:|---|', ...rows.map((row) => `| ${row.join(' | ')} |`)];
  return [...lines, '', ...peerLines(report)];
}

function peerLines({ peers, peersSkipped }: JournalReport): string[] {
  if (!peers) return [`Peers not measured: ${peersSkipped ?? 'unknown reason'}.`];
  return [
    `Durable tool-call steps (${peers.steps} per run, median of ${peers.rounds} runs each, PostgreSQL ${peers.postgres}):`,
    '',
    '| Framework | ms/step | agency ÷ it | Durable with |',
    '|---|---:|---:|---|',
    ...peers.frameworks.map(
      (framework) =>
        `| ${framework.label} | ${framework.msPerStep} | ${framework.id === 'agency' ? '—' : `${peers.ratios[framework.id]}×`} | ${framework.durableWith} |`,
    ),
  ];
}

/** A target and whether this run met it. A `timing` target depends on the machine and the disk at that moment. */
export type TargetResult = { met: boolean; timing: boolean; text: string };

/** Every target of the journal benchmark, judged on `report`. */
export function targetResults(report: JournalReport): TargetResult[] {
  const { append, groupCommit, durableStep, eventLoop, peers } = report;
  const results: TargetResult[] = [
    {
      met: append.appendCpuUs <= TARGETS.appendUs,
      timing: true,
      text: `append ≤ ${TARGETS.appendUs} µs/event unsynced (${append.appendCpuUs} µs of CPU)`,
    },
    {
      met: groupCommit.fsyncsPerStep === TARGETS.fsyncsPerStep && durableStep.fsyncsPerStep === TARGETS.fsyncsPerStep,
      timing: false,
      text: `${TARGETS.fsyncsPerStep} fsync per step (group commit ${groupCommit.fsyncsPerStep}, durable step ${durableStep.fsyncsPerStep})`,
    },
    {
      met: durableStep.ratio <= TARGETS.durableStepRatio,
      timing: true,
      text: `durable no-op step ≤ ${TARGETS.durableStepRatio}× one raw write + fsync of its bytes (${durableStep.ratio}×)`,
    },
    {
      met: eventLoop.p99Ms <= TARGETS.eventLoopP99Ms,
      timing: true,
      text: `event-loop delay p99 ≤ ${TARGETS.eventLoopP99Ms} ms with ${eventLoop.runsAtOnce} runs at once (${eventLoop.p99Ms} ms)`,
    },
  ];
  for (const [id, ratio] of Object.entries(peers?.ratios ?? {})) {
    const label = peers?.frameworks.find((framework) => framework.id === id)?.label ?? id;
    results.push({
      met: ratio <= TARGETS.peerRatio,
      timing: true,
      text: `durable tool-call step ≤ ${TARGETS.peerRatio}× ${label}'s (${ratio}×)`,
    });
  }
  return results;
}

/**
 * One line per target: `met` or `MISSED`, with the figure. A quick run is too short to judge a timing target on a
 * shared disk, so there a miss is marked as not judged; the full run is the one of record.
 */
export function targetLines(mode: JournalReport['mode'], results: TargetResult[]): string[] {
  return results.map(({ met, timing, text }) => {
    if (met) return `met: ${text}`;
    return mode === 'quick' && timing ? `MISSED (not judged in a quick run): ${text}` : `MISSED: ${text}`;
  });
}

/** Whether the run fails: a missed target, except a timing target in a quick run. */
export function runFails(mode: JournalReport['mode'], results: TargetResult[]): boolean {
  return results.some(({ met, timing }) => !met && !(mode === 'quick' && timing));
}

function signed(value: number): string {
  return value >= 0 ? `+${value}` : `${value}`;
}
