import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import type { EventFrame } from '../contracts/events.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { openFileJournal } from './file-journal.ts';
import { readJournal } from './read-journal.ts';

// A real full disk: a 64 KiB tmpfs. Mounting needs root (or CAP_SYS_ADMIN); without it these tests are skipped,
// and the skip says why. The EIO cases go through the injected fs port in file-journal.test.ts. The mount happens in
// beforeAll, so a run that filters these tests out never mounts anything.
let mountPoint = '';
let mountRefusal: string | undefined;

beforeAll(async () => {
  mountPoint = await mkdtemp(path.join(tmpdir(), 'agency-enospc-'));
  mountRefusal = tryMount(mountPoint);
  if (mountRefusal) console.warn(`[file-journal-enospc] skipped: cannot mount a tmpfs here: ${mountRefusal}`);
});

afterAll(async () => {
  // A lazy unmount if a failed test left a descriptor open, so no mount outlives the run.
  if (mountRefusal === undefined) execFileSync('umount', ['--lazy', mountPoint]);
  await rmdir(mountPoint);
});

function skipUnlessMounted(context: TestContext): void {
  if (mountRefusal !== undefined) context.skip(`cannot mount a tmpfs here: ${mountRefusal}`);
}

function tryMount(dir: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return stderr || (error as Error).message;
  }
}

async function freshDir(name: string): Promise<string> {
  const dir = path.join(mountPoint, name);
  await mkdir(dir);
  return dir;
}

describe('ENOSPC on a real 64 KiB tmpfs (skipped, with the reason, where mounting is not permitted)', () => {
  it('flush rejects with journal_not_durable once the disk is full; acknowledged frames all survive', async (context) => {
    skipUnlessMounted(context);
    const dir = await freshDir('journal');
    const file = path.join(dir, 'events.ndjson');
    const ballast = path.join(dir, 'ballast');
    await writeFile(ballast, Buffer.alloc(16 * 1024));
    const journal = await openFileJournal(file);
    const acknowledged: EventFrame[] = [];
    let failure: unknown;
    for (let s = 0; s < 1000 && failure === undefined; s++) {
      const pending: EventFrame[] = [];
      for (let i = 0; i < 5; i++) pending.push(journal.append({ type: 'tool.result', data: { out: 'x'.repeat(400) } }));
      await journal.flush().then(
        () => acknowledged.push(...pending),
        (error: unknown) => (failure = error),
      );
    }

    expect(AgencyError.hasCode(failure, 'journal_not_durable')).toBe(true);
    expect((failure as AgencyError).cause).toMatchObject({ code: 'ENOSPC' });
    expect((failure as AgencyError).message).toContain(file);
    expect(journal.lastSeq).toBeGreaterThan(journal.durableSeq);
    expect(journal.durableSeq).toBe(acknowledged.at(-1)?.seq);
    expect(() => journal.append({ type: 'warning' })).toThrow(expect.objectContaining({ code: 'journal_not_durable' }));
    await expect(journal.flush()).rejects.toMatchObject({ code: 'journal_not_durable' });
    await expect(journal.close()).rejects.toMatchObject({ code: 'journal_not_durable' });

    const read = await readJournal(file);
    expect(read.frames.slice(0, acknowledged.length)).toEqual(acknowledged);

    // With space freed, the next run repairs the torn tail and continues right after the last intact frame.
    await rm(ballast);
    const resumed = await openFileJournal(file);
    expect(resumed.lastSeq).toBe(read.frames.at(-1)?.seq);
    resumed.append({ type: 'run.resumed' });
    await resumed.close();
    const after = await readJournal(file);
    expect(after.torn).toBeUndefined();
    expect(after.frames.map((f) => f.seq)).toEqual(Array.from({ length: after.frames.length }, (_, i) => i + 1));
    expect(after.frames.slice(0, acknowledged.length)).toEqual(acknowledged);
    await rm(dir, { recursive: true });
  });

  it('an atomic write on a full disk fails with file_write_failed, leaves the old file and no temp file', async (context) => {
    skipUnlessMounted(context);
    const dir = await freshDir('atomic');
    const target = path.join(dir, 'state.json');
    await writeFileAtomic(target, '{"old":true}\n');
    await writeFile(path.join(dir, 'filler'), Buffer.alloc(60 * 1024)).catch(() => undefined);

    const error = await writeFileAtomic(target, `${'y'.repeat(32 * 1024)}\n`).catch((e: unknown) => e);
    expect(AgencyError.hasCode(error, 'file_write_failed')).toBe(true);
    expect((error as AgencyError).details).toMatchObject({ path: target, os_code: 'ENOSPC' });
    expect(await readFile(target, 'utf8')).toBe('{"old":true}\n');
    expect((await readdir(dir)).sort()).toEqual(['filler', 'state.json']);
    await rm(dir, { recursive: true });
  });
});
