import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../src/task/fs/atomic-write.ts';
import { createFsSpy } from '../../src/task/fs/fs-spy.ts';
import { openFileJournal } from '../../src/task/journal/file-journal.ts';
import { createFrameFactory } from '../../src/task/journal/frame-factory.ts';
import { SAMPLE_EVENT, sampleState } from './fixtures.ts';
import { median, openRawAppender, quantile, rawAtomicWrite, round, timeUs, timeUsAsync } from './raw-floor.ts';

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

/** `sync: 'always'` against a raw `writeSync` + `fsyncSync` loop of the same bytes, paired event by event. */
export type PerEventFigure = {
  events: number;
  /** Median µs per journal append (write + fsync included). */
  journalUs: number;
  /** Median µs per raw write + fsync. */
  rawUs: number;
  /** The median of the paired differences (journal minus raw), in µs: what agency adds to each append. */
  overheadUs: number;
  /** 1 + overheadUs / rawUs: the paired estimate against the physical floor (1). The target applies to this. */
  ratio: number;
  /** journalUs / rawUs: unpaired, so the disk's spread moves it more. */
  medianRatio: number;
  /** The ratio of the means, which outliers (a stalled fsync) move most. */
  meanRatio: number;
  /** The 10th and 90th percentiles of the raw write + fsync, in µs: how steady the disk was. */
  rawP10Us: number;
  rawP90Us: number;
};

// Each event is timed once through the journal and once raw, next to each other and in alternating order, so the
// disk's changing speed (other writers, the ext4 journal) falls on both sides alike.
export async function measurePerEvent(dir: string, { events }: { events: number }) {
  const line = Buffer.from(`${JSON.stringify(createFrameFactory()(SAMPLE_EVENT, 1))}\n`);
  const journal = await openFileJournal(path.join(dir, 'per-event-journal.ndjson'), { sync: 'always' });
  const raw = openRawAppender(path.join(dir, 'per-event-raw.ndjson'));
  const journalRuns: number[] = [];
  const rawRuns: number[] = [];
  try {
    for (let i = 0; i < events; i++) {
      if (i % 2 === 0) journalRuns.push(timeUs(() => journal.append(SAMPLE_EVENT)));
      rawRuns.push(timeUs(() => raw.append(line)));
      if (i % 2 === 1) journalRuns.push(timeUs(() => journal.append(SAMPLE_EVENT)));
    }
  } finally {
    raw.close();
    await journal.close();
  }
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const overheadUs = median(journalRuns.map((us, i) => us - (rawRuns[i] ?? us)));
  return {
    events,
    journalUs: round(median(journalRuns), 1),
    rawUs: round(median(rawRuns), 1),
    overheadUs: round(overheadUs, 1),
    ratio: round(1 + overheadUs / median(rawRuns), 3),
    medianRatio: round(median(journalRuns) / median(rawRuns), 3),
    meanRatio: round(mean(journalRuns) / mean(rawRuns), 3),
    rawP10Us: round(quantile(rawRuns, 0.1), 1),
    rawP90Us: round(quantile(rawRuns, 0.9), 1),
  } satisfies PerEventFigure;
}

/** The checkpoint: `state.json` replaced atomically, against the same calls made raw, paired write by write. */
export type CheckpointFigure = {
  writes: number;
  stateBytes: number;
  writeUs: number;
  rawUs: number;
  /** The median of the paired differences (agency minus raw), in µs. */
  overheadUs: number;
};

export async function measureCheckpoint(dir: string, { writes }: { writes: number }) {
  const bytes = Buffer.from(`${JSON.stringify(sampleState(), null, 2)}\n`);
  const agency: number[] = [];
  const raw: number[] = [];
  mkdirSync(path.join(dir, 'checkpoint-agency'));
  mkdirSync(path.join(dir, 'checkpoint-raw'));
  const agencyFile = path.join(dir, 'checkpoint-agency', 'state.json');
  const rawFile = path.join(dir, 'checkpoint-raw', 'state.json');
  for (let i = 0; i < writes; i++) {
    if (i % 2 === 0) agency.push(await timeUsAsync(() => writeFileAtomic(agencyFile, bytes)));
    raw.push(timeUs(() => rawAtomicWrite(rawFile, bytes)));
    if (i % 2 === 1) agency.push(await timeUsAsync(() => writeFileAtomic(agencyFile, bytes)));
  }
  return {
    writes,
    stateBytes: bytes.byteLength,
    writeUs: round(median(agency), 1),
    rawUs: round(median(raw), 1),
    overheadUs: round(median(agency.map((us, i) => us - (raw[i] ?? us))), 1),
  } satisfies CheckpointFigure;
}
