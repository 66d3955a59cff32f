import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { createIdGenerator } from '../../core/ids.ts';
import { createFrameFactory } from './frame-factory.ts';
import { readJournal } from './read-journal.ts';

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agency-read-journal-'));
  file = path.join(dir, 'events.ndjson');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const now = () => Date.UTC(2025, 0, 2, 3, 4, 5, 6);
const makeFrame = createFrameFactory({ now, newId: createIdGenerator({ now, randomBytes: (n) => new Uint8Array(n) }) });
const line = (seq: number, message = `m${seq}`) => `${JSON.stringify(makeFrame({ type: 'warning', message }, seq))}\n`;

async function corruption(content: string): Promise<AgencyError> {
  await writeFile(file, content);
  const error = await readJournal(file).catch((e: unknown) => e);
  expect(AgencyError.hasCode(error, 'journal_corrupt')).toBe(true);
  return error as AgencyError;
}

describe('readJournal', () => {
  it('reads every frame of an intact journal, validated against agent.events.v1', async () => {
    await writeFile(file, line(1) + line(2) + line(3));
    const { frames, torn } = await readJournal(file);
    expect(torn).toBeUndefined();
    expect(frames.map((f) => f.seq)).toEqual([1, 2, 3]);
    expect(frames[0]).toMatchObject({ version: 'agent.events.v1', ts: '2025-01-02T03:04:05.006Z', message: 'm1' });
  });

  it('skips a torn last line that has no newline, and reports its line and byte count', async () => {
    const half = line(3).slice(0, 30);
    await writeFile(file, line(1) + line(2) + half);
    expect(await readJournal(file)).toMatchObject({ torn: { line: 3, bytes: 30 } });
    expect((await readJournal(file)).frames).toHaveLength(2);
    expect((await readFile(file, 'utf8')).endsWith(half)).toBe(true);
  });

  it('treats a complete frame missing only its newline as torn: its write never finished', async () => {
    await writeFile(file, line(1) + line(2).trimEnd());
    expect((await readJournal(file)).torn).toEqual({ line: 2, bytes: line(2).length - 1 });
  });

  it('treats a newline-terminated last line that is not JSON (zero-filled blocks after a crash) as torn', async () => {
    await writeFile(file, `${line(1)}\0\0\0\0\n`);
    expect(await readJournal(file)).toMatchObject({ frames: [{ seq: 1 }], torn: { line: 2, bytes: 5 } });
  });

  it('counts torn bytes, not characters, for a cut multi-byte character', async () => {
    const tail = Buffer.from(line(2, 'héllo wörld')).subarray(0, 60);
    await writeFile(file, Buffer.concat([Buffer.from(line(1)), tail]));
    expect((await readJournal(file)).torn).toEqual({ line: 2, bytes: 60 });
  });

  it('with repair: true, cuts the torn tail off the file so appends continue on a clean line', async () => {
    const intact = line(1) + line(2);
    await writeFile(file, intact + line(3).slice(0, 17));
    const result = await readJournal(file, { repair: true });
    expect(result.torn).toEqual({ line: 3, bytes: 17 });
    expect(await readFile(file, 'utf8')).toBe(intact);
    expect((await readJournal(file)).torn).toBeUndefined();
  });

  it('refuses a malformed line before the last as journal_corrupt, naming the file and line', async () => {
    const error = await corruption(`${line(1)}{"version":"agent.ev\n${line(3)}`);
    expect(error.message).toMatch(new RegExp(`^${file}:2: not valid JSON`));
    expect(error.details).toEqual({ path: file, line: 2 });
    expect(error.message).toContain('truncate it there');
  });

  it('refuses two bad lines at the end: only one torn line is tolerated', async () => {
    const error = await corruption(`${line(1)}garbage\n{"half`);
    expect(error.details).toMatchObject({ line: 2 });
  });

  it('refuses an empty line in the middle', async () => {
    expect((await corruption(`${line(1)}\n${line(2)}`)).message).toContain(':2: empty line');
  });

  it('never treats a complete JSON line as torn: a last frame that fails the schema is corruption', async () => {
    const bad = JSON.stringify({ ...JSON.parse(line(2)), type: 'no.such.type' });
    const error = await corruption(`${line(1)}${bad}\n`);
    expect(error.message).toContain(':2: "type":');
  });

  it('refuses a seq that does not strictly increase', async () => {
    const error = await corruption(line(1) + line(3) + line(3));
    expect(error.message).toContain(':3: seq 3 does not increase (the frame before has seq 3)');
  });

  it('reports a missing journal as path_not_found', async () => {
    await expect(readJournal(file)).rejects.toMatchObject({ code: 'path_not_found', details: { path: file } });
  });

  it('reads an empty journal as no frames', async () => {
    await writeFile(file, '');
    expect(await readJournal(file)).toEqual({ frames: [] });
  });
});
