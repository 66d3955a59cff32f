import { appendFile, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventFrame } from '../contracts/events.ts';
import { createFrameFactory } from './frame-factory.ts';
import { openFileJournal } from './file-journal.ts';
import { followJournal } from './follow-journal.ts';

let dir: string;
let file: string;
let controller: AbortController;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agency-follow-'));
  file = path.join(dir, 'events.ndjson');
  controller = new AbortController();
});

afterEach(async () => {
  controller.abort();
  await rm(dir, { recursive: true, force: true });
});

const makeFrame = createFrameFactory();
const line = (seq: number) => `${JSON.stringify(makeFrame({ type: 'warning', message: `m${seq}` }, seq))}\n`;

/** Collects frames from a follower in the background. */
function collect(options: Parameters<typeof followJournal>[1] = {}) {
  const seen: EventFrame[] = [];
  const done = (async () => {
    for await (const frame of followJournal(file, { signal: controller.signal, pollIntervalMs: 50, ...options })) {
      seen.push(frame);
    }
  })();
  return { seen, done, seqs: () => seen.map((f) => f.seq) };
}

describe('followJournal', () => {
  it('yields the frames already written, then frames a live journal appends, without waiting for a flush', async () => {
    const journal = await openFileJournal(file, { writeDelayMs: 5 });
    journal.append({ type: 'phase.start', step: 'gather' });
    await journal.flush();
    const follower = collect();
    await expect.poll(follower.seqs, { timeout: 3000 }).toEqual([1]);
    journal.append({ type: 'tool.call', data: { tool: 'read_file' } });
    journal.append({ type: 'tool.result' });
    await expect.poll(follower.seqs, { timeout: 3000 }).toEqual([1, 2, 3]);
    expect(journal.durableSeq).toBe(1);
    await journal.close();
    controller.abort();
    await follower.done;
    expect(follower.seen.map((f) => f.type)).toEqual(['phase.start', 'tool.call', 'tool.result']);
  });

  it('starts after fromSeq, and waits for a journal that does not exist yet', async () => {
    const follower = collect({ fromSeq: 2 });
    await new Promise((resolve) => setTimeout(resolve, 80));
    await writeFile(file, line(1) + line(2) + line(3));
    await expect.poll(follower.seqs, { timeout: 3000 }).toEqual([3]);
    controller.abort();
    await follower.done;
  });

  it('holds a partial line back until its newline arrives', async () => {
    const whole = line(2);
    await writeFile(file, line(1) + whole.slice(0, 25));
    const follower = collect();
    await expect.poll(follower.seqs, { timeout: 3000 }).toEqual([1]);
    await appendFile(file, whole.slice(25));
    await expect.poll(follower.seqs, { timeout: 3000 }).toEqual([1, 2]);
    controller.abort();
    await follower.done;
  });

  it('survives a torn tail being cut off and rewritten by a resumed run', async () => {
    await writeFile(file, line(1) + line(2).slice(0, 40));
    const follower = collect();
    await expect.poll(follower.seqs, { timeout: 3000 }).toEqual([1]);
    await truncate(file, line(1).length);
    await appendFile(file, line(2) + line(3));
    await expect.poll(follower.seqs, { timeout: 3000 }).toEqual([1, 2, 3]);
    controller.abort();
    await follower.done;
  });

  it('ends the iteration when the signal aborts', async () => {
    await writeFile(file, line(1));
    const follower = collect();
    await expect.poll(follower.seqs, { timeout: 3000 }).toEqual([1]);
    controller.abort();
    await expect(follower.done).resolves.toBeUndefined();
  });

  it('throws journal_corrupt for a complete line that is not a frame', async () => {
    await writeFile(file, `${line(1)}not json\n${line(3)}`);
    const follower = collect();
    await expect(follower.done).rejects.toMatchObject({ code: 'journal_corrupt', details: { line: 2 } });
    expect(follower.seqs()).toEqual([1]);
  });
});
