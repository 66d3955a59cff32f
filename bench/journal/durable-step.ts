import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import type { EventInput } from '../../src/task/contracts/events.ts';
import { type DurableFs, nodeDurableFs } from '../../src/task/fs/durable-fs.ts';
import { createFsSpy } from '../../src/task/fs/fs-spy.ts';
import { openFileJournal } from '../../src/task/journal/file-journal.ts';
import { createFrameFactory } from '../../src/task/journal/frame-factory.ts';
import { createFileStateStore } from '../../src/task/state-store.ts';
import { NOOP_STEP_EVENTS, sampleState } from './fixtures.ts';
import { median, openRawAppender, rawAtomicWrite, round, timeUsAsync } from './raw-floor.ts';

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
};

/** What one durable step costs, against the physical floor of the same writes and fsyncs. */
export type DurableStepFigures = {
  steps: number;
  eventsPerStep: number;
  /** Median µs per step: the appends, one flush, one atomic `state.json` write. */
  stepUs: number;
  /** Median µs per step for the same bytes written with raw sync calls: write + fsync, then temp/rename/dir fsync. */
  floorUs: number;
  /** The median of the paired differences (step minus raw step): what the step adds on top of the disk. */
  overheadUs: number;
  /** fsyncs per step (journal flush, state file, directory): 3 expected. */
  fsyncsPerStep: number;
};

/** A step measured against the floor: run once per sample, with what it needs set up in `dir`. */
type Stepper = { step(): Promise<void> | void; close(): Promise<void> | void };

/**
 * The durable step overhead: a no-op governed step (its events appended, 1 flush, 1 `state.json` checkpoint) minus
 * the fsync floor, measured on one disk in one run. The fsyncs are counted in a separate short run, so the timed
 * steps go through the port with nothing wrapped around it.
 *
 * @example
 * const figures = await measureDurableStep({ dir: await mkdtemp('/var/tmp/step-') });
 */
export async function measureDurableStep({
  dir,
  steps = 100,
  events = NOOP_STEP_EVENTS,
  fs = nodeDurableFs,
}: DurableStepOptions): Promise<DurableStepFigures> {
  const spy = createFsSpy(fs);
  const fsyncsPerStep = await countPerStep(await agencyStepper(dir, events, spy.fs), () => spy.count('fsync'));
  return { ...(await measureAgainstFloor(dir, steps, events, await agencyStepper(dir, events, fs))), fsyncsPerStep };
}

/**
 * Two references measured the same way, to read the agency figure against:
 * - `plain`: the same step written in plain JavaScript with no library (the frames and the state built and
 *   serialized with `JSON.stringify`, the same system calls): the least any JavaScript implementation adds here;
 * - `null`: the raw step itself in a second directory, whose figure should be 0 and shows what one run can resolve.
 */
export async function measureReferenceSteps(
  dir: string,
  steps: number,
  events: readonly EventInput[] = NOOP_STEP_EVENTS,
): Promise<{ plain: DurableStepFigures; null: DurableStepFigures }> {
  const plain = await measureAgainstFloor(dir, steps, events, plainStepper(dir, events));
  const same = await measureAgainstFloor(dir, steps, events, rawStepper(dir, events));
  return { plain: { ...plain, fsyncsPerStep: 3 }, null: { ...same, fsyncsPerStep: 3 } };
}

async function measureAgainstFloor(
  dir: string,
  steps: number,
  events: readonly EventInput[],
  subject: Stepper,
): Promise<Omit<DurableStepFigures, 'fsyncsPerStep'>> {
  const raw = rawStepper(dir, events);
  const measured: number[] = [];
  const floor: number[] = [];
  try {
    // Paired and alternating, step by step, so both sides see the disk in the same state; both are timed through
    // the same async wrapper, so the harness adds the same to each.
    for (let step = 0; step < steps; step++) {
      if (step % 2 === 0) measured.push(await timeUsAsync(async () => subject.step()));
      floor.push(await timeUsAsync(async () => raw.step()));
      if (step % 2 === 1) measured.push(await timeUsAsync(async () => subject.step()));
    }
  } finally {
    await raw.close();
    await subject.close();
  }
  const differences = measured.map((us, i) => us - (floor[i] ?? us));
  return {
    steps,
    eventsPerStep: events.length,
    stepUs: round(median(measured), 1),
    floorUs: round(median(floor), 1),
    overheadUs: round(median(differences), 1),
  };
}

async function countPerStep(stepper: Stepper, count: () => number, steps = 20): Promise<number> {
  const before = count();
  for (let step = 0; step < steps; step++) await stepper.step();
  const perStep = (count() - before) / steps;
  await stepper.close();
  return perStep;
}

// agency's durable step: the journal and the state store, as the runner uses them at a step boundary.
async function agencyStepper(dir: string, events: readonly EventInput[], fs: DurableFs): Promise<Stepper> {
  const stepDir = mkdtempSync(path.join(dir, 'step-agency-'));
  const journal = await openFileJournal(path.join(stepDir, 'events.ndjson'), { fs });
  const store = createFileStateStore(stepDir, { fs });
  const state = sampleState();
  return {
    async step() {
      for (const event of events) journal.append(event);
      await journal.flush();
      state.last_seq = journal.durableSeq;
      state.updated_at = new Date().toISOString();
      await store.write(state);
    },
    close: () => journal.close(),
  };
}

// The same step with no library: what a careful hand-written implementation does.
function plainStepper(dir: string, events: readonly EventInput[]): Stepper {
  const stepDir = mkdtempSync(path.join(dir, 'step-plain-'));
  const journal = openRawAppender(path.join(stepDir, 'events.ndjson'));
  const stateFile = path.join(stepDir, 'state.json');
  const state = sampleState();
  let seq = 0;
  return {
    step() {
      let lines = '';
      for (const event of events) {
        const frame = { version: 'agent.events.v1', id: randomUUID(), seq: ++seq, ts: new Date().toISOString() };
        lines += `${JSON.stringify({ ...frame, ...event })}\n`;
      }
      journal.append(Buffer.from(lines));
      state.last_seq = seq;
      state.updated_at = new Date().toISOString();
      rawAtomicWrite(stateFile, Buffer.from(`${JSON.stringify(state, null, 2)}\n`));
    },
    close: () => journal.close(),
  };
}

// The floor: the bytes of a durable step, prepared once, written with raw sync calls: the journal lines + fsync,
// then state.json the atomic way (temp, fsync, rename, fsync of the directory).
function rawStepper(dir: string, events: readonly EventInput[]): Stepper {
  const stepDir = mkdtempSync(path.join(dir, 'step-raw-'));
  const makeFrame = createFrameFactory();
  const stepBytes = Buffer.from(events.map((event, i) => `${JSON.stringify(makeFrame(event, i + 1))}\n`).join(''));
  const stateBytes = Buffer.from(`${JSON.stringify(sampleState(), null, 2)}\n`);
  const stateFile = path.join(stepDir, 'state.json');
  const journal = openRawAppender(path.join(stepDir, 'events.ndjson'));
  return {
    step() {
      journal.append(stepBytes);
      rawAtomicWrite(stateFile, stateBytes);
    },
    close: () => journal.close(),
  };
}
