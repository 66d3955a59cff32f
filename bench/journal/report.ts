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
  durableStep: DurableStepFigures;
  targets: typeof TARGETS;
  targetsMet: boolean[];
};

/** The targets the journal is held to. */
export const TARGETS = {
  appendUs: 3,
  fsyncsPerStep: 1,
  perEventRatio: 1.1,
} as const;

/** The figures as a markdown table. */
export function reportLines(report: JournalReport): string[] {
  const { append, groupCommit, perEvent, checkpoint, durableStep } = report;
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
    [
      'no-op durable step overhead (µs)',
      `${durableStep.overheadUs}`,
      `${durableStep.eventsPerStep} appends + flush + checkpoint: ${durableStep.stepUs} µs vs floor ` +
        `${durableStep.floorUs} µs (medians of ${durableStep.steps} paired steps), ${durableStep.fsyncsPerStep} fsyncs/step`,
    ],
  ];
  return ['| Measure | Figure | Detail |', '|---|---:|---|', ...rows.map((row) => `| ${row.join(' | ')} |`)];
}

/** One line per target: `met` or `MISSED`, with the figure. */
export function targetLines(report: JournalReport): string[] {
  const line = (met: boolean, text: string) => `${met ? 'met' : 'MISSED'}: ${text}`;
  return [
    line(
      report.append.appendCpuUs <= TARGETS.appendUs,
      `append ≤ ${TARGETS.appendUs} µs/event unsynced (${report.append.appendCpuUs} µs of CPU)`,
    ),
    line(
      report.groupCommit.fsyncsPerStep === TARGETS.fsyncsPerStep,
      `${TARGETS.fsyncsPerStep} fsync per step (${report.groupCommit.fsyncsPerStep})`,
    ),
    line(
      report.perEvent.ratio <= TARGETS.perEventRatio,
      `per-event fsync ≤ ${TARGETS.perEventRatio}× the raw floor (${report.perEvent.ratio}×)`,
    ),
  ];
}

function signed(value: number): string {
  return value >= 0 ? `+${value}` : `${value}`;
}
