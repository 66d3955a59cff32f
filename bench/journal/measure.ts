import { rmSync } from 'node:fs';
import path from 'node:path';
import { createFsSpy } from '../../test/support/fs-spy.ts';
import { openFileJournal } from '../../src/task/journal/file-journal.ts';
import { createFrameFactory } from '../../src/task/journal/frame-factory.ts';
import { SAMPLE_EVENT } from './fixtures.ts';
import { median, round } from './raw-floor.ts';

/** Unsynced append cost. */
export type AppendFigure = {
  events: number;
  frameBytes: number;
  /** Median CPU µs (user + system, `process.cpuUsage`) per `append()`: what an append costs. */
  appendCpuUs: number;
  /** Median wall-clock µs per `append()`; above the CPU figure when other processes compete for the cores. */
  appendWallUs: number;
  /** The least-disturbed batch's wall-clock µs per `append()`. */
  appendBestWallUs: number;
  /** Median wall-clock µs per event including writing the buffer to the OS (`flush()` with sync 'none'). */
  appendAndWriteUs: number;
};

/** Measures `append()` alone and with the buffered writes, over batches, after a warm-up. */
export async function measureAppend(dir: string, { events, batch }: { events: number; batch: number }) {
  const journal = await openFileJournal(path.join(dir, 'append.ndjson'), { sync: 'none' });
  for (let i = 0; i < batch; i++) journal.append(SAMPLE_EVENT);
  await journal.flush();
  const cpu: number[] = [];
  const wall: number[] = [];
  const withWrite: number[] = [];
  for (let done = 0; done < events; done += batch) {
    const cpuStart = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < batch; i++) journal.append(SAMPLE_EVENT);
    const appended = performance.now();
    const cpuUsed = process.cpuUsage(cpuStart);
    await journal.flush();
    cpu.push((cpuUsed.user + cpuUsed.system) / batch);
    wall.push(((appended - started) * 1000) / batch);
    withWrite.push(((performance.now() - started) * 1000) / batch);
  }
  await journal.close();
  // Some 60 MB were written and never synced: drop them now, or their writeback would slow the fsyncs measured next.
  rmSync(path.join(dir, 'append.ndjson'));
  const frameBytes = Buffer.byteLength(JSON.stringify(createFrameFactory()(SAMPLE_EVENT, 1))) + 1;
  return {
    events,
    frameBytes,
    appendCpuUs: round(median(cpu), 3),
    appendWallUs: round(median(wall), 3),
    appendBestWallUs: round(Math.min(...wall), 3),
    appendAndWriteUs: round(median(withWrite), 3),
  } satisfies AppendFigure;
}

/** Group commit: a step of appends then one flush, counting fsyncs through the fs port. */
export type GroupCommitFigure = { steps: number; eventsPerStep: number; fsyncsPerStep: number; stepUs: number };

export async function measureGroupCommit(
  dir: string,
  { steps, eventsPerStep }: { steps: number; eventsPerStep: number },
) {
  const spy = createFsSpy();
  const journal = await openFileJournal(path.join(dir, 'group.ndjson'), { fs: spy.fs });
  const before = spy.count('fsync');
  const started = performance.now();
  for (let step = 0; step < steps; step++) {
    for (let i = 0; i < eventsPerStep; i++) journal.append(SAMPLE_EVENT);
    await journal.flush();
  }
  const stepUs = ((performance.now() - started) * 1000) / steps;
  const fsyncsPerStep = (spy.count('fsync') - before) / steps;
  await journal.close();
  return { steps, eventsPerStep, fsyncsPerStep, stepUs: round(stepUs, 1) } satisfies GroupCommitFigure;
}
