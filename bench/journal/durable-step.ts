import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import type { EventInput } from '../../src/task/contracts/events.ts';
import { type DurableFs, nodeDurableFs } from '../../src/task/fs/durable-fs.ts';
import { createFsSpy } from '../../src/task/fs/fs-spy.ts';
import { openFileJournal } from '../../src/task/journal/file-journal.ts';
import { createFrameFactory } from '../../src/task/journal/frame-factory.ts';
import { createFileStateStore } from '../../src/task/state-store.ts';
import { NOOP_STEP_EVENTS, sampleState } from './fixtures.ts';
import { median, openRawAppender, rawAtomicWrite, round, timeUs, timeUsAsync } from './raw-floor.ts';

/** Options for {@link measureDurableStep}. */
export type DurableStepOptions = {
  /** An empty directory on the disk to measure (the figures mean nothing on tmpfs, where fsync is free). */
  dir: string;
  /** Steps measured. @default 100 */
  steps?: number;
  /** The events journaled per step. @default NOOP_STEP_EVENTS, what a no-op governed step journals */
  events?: readonly EventInput[];
  /** How agency reaches the disk. @default nodeDurableFs (inline) */
  fs?: DurableFs;
  /**
   * Extra work for one step, run before its journal flush: the runner's own per-step code, so a caller can measure
   * the durable overhead of a full governed step rather than a no-op one.
   */
  work?: (step: number) => Promise<void> | void;
};

/** What one durable step costs, against the physical floor of the same writes and fsyncs. */
export type DurableStepFigures = {
  steps: number;
  eventsPerStep: number;
  /** Median µs per step: the appends, one flush, one atomic `state.json` write (plus `work`). */
  stepUs: number;
  /** Median µs per step for the same bytes written with raw sync calls: write + fsync, then temp/rename/dir fsync. */
  floorUs: number;
  /** The median of the paired differences (agency step minus raw step): what agency adds on top of the disk. */
  overheadUs: number;
  /** fsyncs per step made by agency (journal flush, state file, directory): 3 expected. */
  fsyncsPerStep: number;
};

/**
 * The durable step overhead: a no-op governed step (its events appended, 1 flush, 1 `state.json` checkpoint) minus
 * the fsync floor, measured on one disk in one run. The runner's benchmark passes its per-step code as `work`.
 *
 * @example
 * const figures = await measureDurableStep({ dir: await mkdtemp('/var/tmp/step-') });
 */
export async function measureDurableStep({
  dir,
  steps = 100,
  events = NOOP_STEP_EVENTS,
  fs = nodeDurableFs,
  work,
}: DurableStepOptions): Promise<DurableStepFigures> {
  const agencyDir = mkdtempSync(path.join(dir, 'step-agency-'));
  const rawDir = mkdtempSync(path.join(dir, 'step-raw-'));
  const spy = createFsSpy(fs);
  const journal = await openFileJournal(path.join(agencyDir, 'events.ndjson'), { fs: spy.fs });
  const store = createFileStateStore(agencyDir, { fs: spy.fs });
  const raw = rawStepper(rawDir, events);
  const state = sampleState();
  const agencyStep = async (step: number) => {
    for (const event of events) journal.append(event);
    await work?.(step);
    await journal.flush();
    state.last_seq = journal.durableSeq;
    await store.write(state);
  };
  const agency: number[] = [];
  const floor: number[] = [];
  const fsyncsBefore = spy.count('fsync', 'fsyncSync');
  try {
    // Paired and alternating, step by step, so both sides see the disk in the same state.
    for (let step = 0; step < steps; step++) {
      if (step % 2 === 0) agency.push(await timeUsAsync(() => agencyStep(step)));
      floor.push(timeUs(() => raw.step()));
      if (step % 2 === 1) agency.push(await timeUsAsync(() => agencyStep(step)));
    }
  } finally {
    raw.close();
    await journal.close();
  }
  const fsyncsPerStep = (spy.count('fsync', 'fsyncSync') - fsyncsBefore) / steps;
  const differences = agency.map((us, i) => us - (floor[i] ?? us));
  return {
    steps,
    eventsPerStep: events.length,
    stepUs: round(median(agency), 1),
    floorUs: round(median(floor), 1),
    overheadUs: round(median(differences), 1),
    fsyncsPerStep,
  };
}

// The same bytes a durable step writes, with raw sync calls: the journal lines + fsync, then state.json the
// atomic way (temp, fsync, rename, fsync of the directory).
function rawStepper(dir: string, events: readonly EventInput[]): { step(): void; close(): void } {
  const makeFrame = createFrameFactory();
  const stepBytes = Buffer.from(events.map((event, i) => `${JSON.stringify(makeFrame(event, i + 1))}\n`).join(''));
  const stateBytes = Buffer.from(`${JSON.stringify(sampleState(), null, 2)}\n`);
  const stateFile = path.join(dir, 'state.json');
  const journal = openRawAppender(path.join(dir, 'events.ndjson'));
  return {
    step() {
      journal.append(stepBytes);
      rawAtomicWrite(stateFile, stateBytes);
    },
    close: () => journal.close(),
  };
}
