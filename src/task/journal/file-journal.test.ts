import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import type { EventFrame } from '../contracts/events.ts';
import { nodeDurableFs as base } from '../fs/durable-fs.ts';
import { createFsSpy, type FsOp, osError } from '../../../test/support/fs-spy.ts';
import { openFileJournal } from './file-journal.ts';
import { readJournal } from './read-journal.ts';

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agency-journal-'));
  file = path.join(dir, 'events.ndjson');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const step = (journal: { append: (e: { type: 'warning'; message: string }) => EventFrame }, n: number) => {
  for (let i = 0; i < n; i++) journal.append({ type: 'warning', message: `event ${i}` });
};

async function lines(): Promise<string[]> {
  return (await readFile(file, 'utf8')).split('\n').filter(Boolean);
}

describe('openFileJournal: group commit', () => {
  it('fsyncs once per flush and never per append', async () => {
    const spy = createFsSpy();
    const journal = await openFileJournal(file, { fs: spy.fs });
    const afterOpen = spy.count('fsync');
    for (let s = 0; s < 3; s++) {
      step(journal, 20);
      expect(spy.count('fsync')).toBe(afterOpen + s);
      await journal.flush();
      expect(spy.count('fsync')).toBe(afterOpen + s + 1);
    }
    await journal.flush();
    expect(spy.count('fsync')).toBe(afterOpen + 3);
    expect([journal.lastSeq, journal.durableSeq]).toEqual([60, 60]);
    await journal.close();
    expect((await readJournal(file)).frames.map((f) => f.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });

  it('acknowledges frames only when a flush resolves: lastSeq runs ahead of durableSeq until then', async () => {
    const journal = await openFileJournal(file);
    step(journal, 5);
    expect([journal.lastSeq, journal.durableSeq]).toEqual([5, 0]);
    const flushing = journal.flush();
    step(journal, 2);
    await flushing;
    // The flush covers what was appended before it, and whatever joined its write while it waited.
    expect(journal.lastSeq).toBe(7);
    expect(journal.durableSeq).toBeGreaterThanOrEqual(5);
    await journal.close();
    expect([journal.lastSeq, journal.durableSeq]).toEqual([7, 7]);
  });

  it('serves flushes asked for together with one fsync (group commit), and never fsyncs with sync: none', async () => {
    const spy = createFsSpy();
    const journal = await openFileJournal(file, { fs: spy.fs });
    const afterOpen = spy.count('fsync');
    const flushes = [1, 2, 3].map((n) => {
      journal.append({ type: 'warning', message: `run ${n}` });
      return journal.flush();
    });
    await Promise.all(flushes);
    expect(spy.count('fsync') - afterOpen).toBe(1);
    expect(journal.durableSeq).toBe(3);
    await journal.close();

    const none = createFsSpy();
    const other = await openFileJournal(path.join(dir, 'none.ndjson'), { fs: none.fs, sync: 'none' });
    step(other, 4);
    await other.flush();
    expect(none.count('fsync')).toBe(0);
    expect(other.durableSeq).toBe(4);
    await other.close();
  });

  it('fsyncs the directory of a new journal, and a reopened journal itself, before it appends', async () => {
    const spy = createFsSpy();
    await (await openFileJournal(file, { fs: spy.fs })).close();
    expect(spy.calls.filter((call) => call.op === 'fsync').map((call) => call.path)).toEqual([dir]);
    const again = createFsSpy();
    await (await openFileJournal(file, { fs: again.fs })).close();
    expect(again.calls.filter((call) => call.op === 'fsync').map((call) => call.path)).toEqual([file]);
  });

  it('writes the buffer soon after an append, before any flush, so followers see events live', async () => {
    const journal = await openFileJournal(file, { writeDelayMs: 5 });
    journal.append({ type: 'phase.start', step: 'plan' });
    await expect.poll(lines, { timeout: 2000 }).toHaveLength(1);
    expect(journal.durableSeq).toBe(0);
    await journal.close();
  });

  it('writes at once when the buffer passes bufferBytes', async () => {
    const spy = createFsSpy();
    const journal = await openFileJournal(file, { fs: spy.fs, bufferBytes: 1000, writeDelayMs: 60_000 });
    const fsyncsAfterOpen = spy.count('fsync');
    journal.append({ type: 'warning', message: 'x'.repeat(1200) });
    await expect.poll(() => spy.count('write'), { timeout: 2000 }).toBe(1);
    expect(spy.count('fsync')).toBe(fsyncsAfterOpen);
    await journal.close();
  });

  it('does not keep the process alive with a pending write timer', async () => {
    const script = path.join(dir, 'child.mjs');
    const modulePath = path.resolve(import.meta.dirname, 'file-journal.ts');
    await writeFile(
      script,
      `import { openFileJournal } from ${JSON.stringify(modulePath)};\n` +
        `const j = await openFileJournal(${JSON.stringify(file)}, { writeDelayMs: 60000 });\n` +
        `j.append({ type: 'warning', message: 'unflushed' });\n`,
    );
    const started = Date.now();
    await promisify(execFile)(process.execPath, [script], { timeout: 20_000 });
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('openFileJournal: reopening', () => {
  it('continues seq across reopen, strictly increasing, with unique ids', async () => {
    const first = await openFileJournal(file);
    step(first, 3);
    await first.close();
    const second = await openFileJournal(file);
    expect([second.lastSeq, second.durableSeq]).toEqual([3, 3]);
    expect(second.append({ type: 'run.resumed' }).seq).toBe(4);
    step(second, 1);
    await second.close();
    const { frames } = await readJournal(file);
    expect(frames.map((f) => f.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(frames.map((f) => f.id)).size).toBe(5);
  });

  it('repairs a torn tail (half a line) on reopen and continues after the last intact frame', async () => {
    const first = await openFileJournal(file);
    step(first, 3);
    await first.close();
    const intact = await readFile(file);
    await appendFile(file, '{"version":"agent.events.v1","id":"evt_01J');
    expect((await readJournal(file)).torn).toEqual({ line: 4, bytes: 42 });

    const second = await openFileJournal(file);
    expect((await readFile(file)).equals(intact)).toBe(true);
    expect(await second.read()).toMatchObject({ torn: { line: 4, bytes: 42 } });
    expect((await second.read()).frames).toHaveLength(3);
    expect(second.append({ type: 'run.resumed' }).seq).toBe(4);
    await second.close();
    const after = await readJournal(file);
    expect(after.torn).toBeUndefined();
    expect(after.frames.map((f) => [f.seq, f.type])).toEqual([
      [1, 'warning'],
      [2, 'warning'],
      [3, 'warning'],
      [4, 'run.resumed'],
    ]);
  });

  it('refuses to open a journal corrupt before its last line, and leaves it as it was', async () => {
    const first = await openFileJournal(file);
    step(first, 3);
    await first.close();
    const [a, , c] = await lines();
    const corrupt = `${a}\n{"half a frame\n${c}\n`;
    await writeFile(file, corrupt);
    const error = await openFileJournal(file).catch((e: unknown) => e);
    expect(AgencyError.hasCode(error, 'journal_corrupt')).toBe(true);
    expect((error as AgencyError).message).toContain(`${file}:2: not valid JSON`);
    expect(await readFile(file, 'utf8')).toBe(corrupt);
  });
});

describe('openFileJournal: redaction and input', () => {
  it('applies the redact hook before the bytes hit the disk, and returns the redacted frame', async () => {
    const secret = 'sk-ant-api03-SECRETSECRETSECRET';
    const redact = (frame: EventFrame): EventFrame =>
      JSON.parse(JSON.stringify(frame).replaceAll(secret, '[REDACTED]'));
    const journal = await openFileJournal(file, { redact, writeDelayMs: 1 });
    const frame = journal.append({ type: 'tool.call', data: { headers: { authorization: `Bearer ${secret}` } } });
    expect(frame.data).toEqual({ headers: { authorization: 'Bearer [REDACTED]' } });
    await journal.close();
    const bytes = await readFile(file, 'utf8');
    expect(bytes).not.toContain(secret);
    expect(bytes).toContain('Bearer [REDACTED]');
  });

  it('refuses an event that cannot be written as JSON without breaking the journal', async () => {
    const journal = await openFileJournal(file);
    const error = (() => {
      try {
        journal.append({ type: 'warning', data: { big: 10n } });
      } catch (e) {
        return e;
      }
    })();
    expect(AgencyError.hasCode(error, 'invalid_argument')).toBe(true);
    expect(journal.append({ type: 'warning' }).seq).toBe(1);
    await journal.close();
    expect(() => journal.append({ type: 'warning' })).toThrow(/closed/);
  });
});

describe('openFileJournal: disk failures through the injected fs port (EIO)', () => {
  const failing = (op: FsOp, afterCalls: number) => {
    let seen = 0;
    return createFsSpy(base, {
      fault: (call) => (call.op === op && ++seen > afterCalls ? osError('EIO', op) : undefined),
    });
  };

  it('EIO on fsync: flush rejects with journal_not_durable, the journal is broken for good, acked frames stay', async () => {
    const spy = failing('fsync', 2); // the new file's directory and the first flush succeed
    const journal = await openFileJournal(file, { fs: spy.fs });
    step(journal, 5);
    await journal.flush();
    step(journal, 5);
    const error = await journal.flush().catch((e: unknown) => e);
    expect(AgencyError.hasCode(error, 'journal_not_durable')).toBe(true);
    expect((error as AgencyError).cause).toMatchObject({ code: 'EIO' });
    expect((error as AgencyError).details).toMatchObject({ path: file, os_code: 'EIO', last_seq: 10, durable_seq: 5 });
    expect([journal.lastSeq, journal.durableSeq]).toEqual([10, 5]);
    expect(() => journal.append({ type: 'warning' })).toThrow(expect.objectContaining({ code: 'journal_not_durable' }));
    await expect(journal.flush()).rejects.toMatchObject({ code: 'journal_not_durable' });
    await expect(journal.close()).rejects.toMatchObject({ code: 'journal_not_durable' });
    expect(spy.count('fsync')).toBe(3); // it never retried the failed fsync
    const { frames } = await readJournal(file);
    expect(frames.filter((f) => f.seq <= 5)).toHaveLength(5);
  });

  it('EIO on a background write: the next append and flush refuse, nothing more is written', async () => {
    const spy = failing('write', 0);
    const journal = await openFileJournal(file, { fs: spy.fs, writeDelayMs: 1 });
    step(journal, 2);
    await expect.poll(() => spy.count('write'), { timeout: 2000 }).toBe(1);
    await expect
      .poll(() => {
        try {
          journal.append({ type: 'warning' });
          return 'accepted';
        } catch (error) {
          return (error as AgencyError).code;
        }
      })
      .toBe('journal_not_durable');
    await expect(journal.flush()).rejects.toMatchObject({ code: 'journal_not_durable', cause: { code: 'EIO' } });
    expect(journal.durableSeq).toBe(0);
    expect(spy.count('write')).toBe(1);
    await journal.close().catch(() => undefined);
  });
});
