import type { DurableStepFigures } from './durable-step.ts';
import type { AppendFigure, CheckpointFigure, GroupCommitFigure, PerEventFigure } from './measure.ts';

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
  perEvent: PerEventFigure;
  checkpoint: CheckpointFigure;
  /** The default, `inline` I/O; the target applies to it. */
  durableStep: DurableStepFigures;
  /** The same step with `durableIo: 'thread-pool'`, for comparison. */
  durableStepThreadPool: DurableStepFigures;
  /**
   * References measured the same way: the step in plain JavaScript with no library (the least any implementation
   * adds here), and the raw step against itself (0 in theory: what one run can resolve).
   */
  referenceSteps: { plain: DurableStepFigures; null: DurableStepFigures };
  targets: typeof TARGETS;
  targetsMet: boolean[];
};

/** The targets the journal is held to. */
export const TARGETS = {
  appendUs: 3,
  fsyncsPerStep: 1,
  perEventRatio: 1.1,
  durableStepUs: 20,
} as const;

/** The figures as a markdown table. */
export function reportLines(report: JournalReport): string[] {
  const { append, groupCommit, perEvent, checkpoint, durableStep, durableStepThreadPool, referenceSteps } = report;
  const rows: [string, string, string][] = [
    [
      'append, unsynced (CPU µs/event)',
      `${append.appendCpuUs}`,
      `${append.frameBytes}-byte frames, ${append.events} events; wall clock ${append.appendWallUs} µs ` +
        `(best batch ${append.appendBestWallUs} µs)`,
    ],
    [
      'append + write to the OS (µs/event)',
      `${append.appendAndWriteUs}`,
      'the same, including the buffered writes (`flush()` with sync none)',
    ],
    [
      'group commit (fsyncs/step)',
      `${groupCommit.fsyncsPerStep}`,
      `${groupCommit.eventsPerStep} appends + 1 flush: ${groupCommit.stepUs} µs/step`,
    ],
    [
      "sync 'always' vs raw write+fsync",
      `${perEvent.ratio}×`,
      `${signed(perEvent.overheadUs)} µs/event (median of ${perEvent.events} paired differences) on a raw median of ` +
        `${perEvent.rawUs} µs (p10–p90 ${perEvent.rawP10Us}–${perEvent.rawP90Us} µs); unpaired: ` +
        `${perEvent.journalUs} µs, ${perEvent.medianRatio}× of medians, ${perEvent.meanRatio}× of means`,
    ],
    [
      'checkpoint: state.json atomic write (µs)',
      `${checkpoint.writeUs}`,
      `${checkpoint.stateBytes} bytes; raw calls ${checkpoint.rawUs} µs; paired difference ${signed(checkpoint.overheadUs)} µs`,
    ],
    durableStepRow('no-op durable step overhead (µs)', durableStep),
    durableStepRow("the same with durableIo 'thread-pool' (µs)", durableStepThreadPool),
    durableStepRow('reference: the step in plain JavaScript (µs)', referenceSteps.plain),
    durableStepRow('reference: the raw step against itself (µs)', referenceSteps.null),
  ];
  return ['| Measure | Figure | Detail |', '|---|---:|---|', ...rows.map((row) => `| ${row.join(' | ')} |`)];
}

function durableStepRow(name: string, step: DurableStepFigures): [string, string, string] {
  return [
    name,
    `${step.overheadUs}`,
    `${step.eventsPerStep} frames + flush + checkpoint: ${step.stepUs} µs vs floor ${step.floorUs} µs ` +
      `(medians of ${step.steps} paired steps), ${step.fsyncsPerStep} fsyncs/step`,
  ];
}

/** A target and whether this run met it. A `timing` target depends on the machine and the disk at that moment. */
export type TargetResult = { met: boolean; timing: boolean; text: string };

/** Every target of the journal benchmark, judged on `report`. */
export function targetResults(report: JournalReport): TargetResult[] {
  const { append, groupCommit, perEvent, durableStep } = report;
  return [
    {
      met: append.appendCpuUs <= TARGETS.appendUs,
      timing: true,
      text: `append ≤ ${TARGETS.appendUs} µs/event unsynced (${append.appendCpuUs} µs of CPU)`,
    },
    {
      met: groupCommit.fsyncsPerStep === TARGETS.fsyncsPerStep,
      timing: false,
      text: `${TARGETS.fsyncsPerStep} fsync per step (${groupCommit.fsyncsPerStep})`,
    },
    {
      met: perEvent.ratio <= TARGETS.perEventRatio,
      timing: true,
      text: `per-event fsync ≤ ${TARGETS.perEventRatio}× the raw floor (${perEvent.ratio}×)`,
    },
    {
      met: durableStep.overheadUs <= TARGETS.durableStepUs,
      timing: true,
      text: `no-op durable step ≤ ${TARGETS.durableStepUs} µs above the floor (${durableStep.overheadUs} µs)`,
    },
  ];
}

/**
 * One line per target: `met` or `MISSED`, with the figure. A quick run is too short to judge a timing target (a
 * 10% margin on a shared disk), so there a miss is marked as not judged; the full run is the one of record.
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
