import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import type { EventInput } from '../../src/task/contracts/events.ts';
import type { DurableFs } from '../../src/task/fs/durable-fs.ts';
import { createFsSpy } from '../../test/support/fs-spy.ts';
import { openFileJournal } from '../../src/task/journal/file-journal.ts';
import { createFrameFactory } from '../../src/task/journal/frame-factory.ts';
import type { Journal } from '../../src/task/journal/journal.ts';
import { createFileStateStore } from '../../src/task/state-store.ts';
import { createStateWriter } from '../../src/task/state-writer.ts';
import { NOOP_STEP_EVENTS, sampleState } from './fixtures.ts';
import { median, openRawAppender, quantile, round, timeUsAsync } from './raw-floor.ts';

/** What one durable no-op step costs, against one raw write + fsync of the same bytes. */
export type DurableStepFigures = {
  steps: number;
  /** Steps per timed block: each block runs back to back, as a run's steps do. */
  blockSteps: number;
  eventsPerStep: number;
  /** Median µs per step, the state writes of the block included. */
  stepUs: number;
  /** Median µs per raw write + fsync of the same bytes, through the thread pool. */
  rawUs: number;
  rawP10Us: number;
  rawP90Us: number;
  /** The median of the paired block differences per step (agency minus raw), in µs. */
  overheadUs: number;
  /** 1 + overheadUs / rawUs: the paired estimate against the floor (1). The target applies to this. */
  ratio: number;
  /** fsyncs per step, counted through the fs port in a separate short run (1 expected: the journal's commit). */
  fsyncsPerStep: number;
};

/** Options for {@link measureDurableStep}. */
export type DurableStepOptions = { dir: string; steps: number; blockSteps?: number };

/**
 * The durable no-op step: the three frames a no-op governed step journals, one commit (`flush`, one fsync), and the
 * `state.json` checkpoint handed to the state writer, exactly as `session.boundary` does it, against the same bytes
 * written and fsynced raw through the thread pool. Steps run in blocks back to back (the state writes of a block
 * overlap its next commits, as in a run, and the block waits for the last one), agency and raw blocks alternating,
 * paired block by block.
 */
export async function measureDurableStep({
  dir,
  steps,
  blockSteps = 100,
}: DurableStepOptions): Promise<DurableStepFigures> {
  const fsyncsPerStep = await countFsyncs(dir);
  const agency = await agencyStepper(dir);
  const raw = rawStepper(dir);
  const measured: number[] = [];
  const floor: number[] = [];
  const block = async (stepper: Stepper) =>
    (await timeUsAsync(async () => {
      for (let i = 0; i < blockSteps; i++) await stepper.step();
      await stepper.settle();
    })) / blockSteps;
  try {
    for (let done = 0; done < steps; done += blockSteps) {
      if (done % (2 * blockSteps) === 0) measured.push(await block(agency));
      floor.push(await block(raw));
      if (done % (2 * blockSteps) !== 0) measured.push(await block(agency));
    }
  } finally {
    await agency.close();
    await raw.close();
  }
  const overheadUs = median(measured.map((us, i) => us - (floor[i] ?? us)));
  return {
    steps,
    blockSteps,
    eventsPerStep: NOOP_STEP_EVENTS.length,
    stepUs: round(median(measured), 1),
    rawUs: round(median(floor), 1),
    rawP10Us: round(quantile(floor, 0.1), 1),
    rawP90Us: round(quantile(floor, 0.9), 1),
    overheadUs: round(overheadUs, 1),
    ratio: round(1 + overheadUs / median(floor), 3),
    fsyncsPerStep,
  };
}

type Stepper = { step(): Promise<void>; settle(): Promise<void>; close(): Promise<void> | void };

async function countFsyncs(dir: string, steps = 20): Promise<number> {
  const spy = createFsSpy();
  const stepper = await agencyStepper(dir, spy.fs);
  await stepper.step();
  await stepper.settle();
  const before = spy.count('fsync');
  for (let i = 0; i < steps; i++) await stepper.step();
  await stepper.settle();
  await stepper.close();
  return (spy.count('fsync') - before) / steps;
}

// agency's step: the journal and the state writer over the file store, as a step boundary uses them.
async function agencyStepper(dir: string, fs?: DurableFs): Promise<Stepper> {
  const stepDir = mkdtempSync(path.join(dir, 'step-agency-'));
  const journal: Journal = await openFileJournal(path.join(stepDir, 'events.ndjson'), fs ? { fs } : {});
  const writer = createStateWriter(createFileStateStore(stepDir, fs ? { fs } : {}));
  const state = sampleState();
  return {
    async step() {
      for (const event of NOOP_STEP_EVENTS) journal.append(event);
      await journal.flush();
      state.last_seq = journal.durableSeq;
      state.updated_at = new Date().toISOString();
      writer.submit(state);
    },
    settle: () => writer.settle(),
    close: () => journal.close(),
  };
}

// The floor: the bytes of the step's frames, prepared once, written and fsynced raw through the thread pool.
function rawStepper(dir: string, events: readonly EventInput[] = NOOP_STEP_EVENTS): Stepper {
  const stepDir = mkdtempSync(path.join(dir, 'step-raw-'));
  const makeFrame = createFrameFactory();
  const bytes = Buffer.from(events.map((event, i) => `${JSON.stringify(makeFrame(event, i + 1))}\n`).join(''));
  const appender = openRawAppender(path.join(stepDir, 'events.ndjson'));
  return { step: () => appender.append(bytes), settle: async () => undefined, close: () => appender.close() };
}
