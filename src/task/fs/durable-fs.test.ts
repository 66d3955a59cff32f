import { constants } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openFileJournal } from '../journal/file-journal.ts';
import { readJournal } from '../journal/read-journal.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { nodeDurableFs as fs, syncDir } from './durable-fs.ts';
import { createFsSpy, osError } from '../../../test/support/fs-spy.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agency-durable-fs-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const { O_WRONLY, O_CREAT, O_EXCL } = constants;

describe('the node port', () => {
  it('writes, syncs, renames, reads and removes a file', async () => {
    const file = path.join(dir, 'a');
    const fd = await fs.open(file, O_WRONLY | O_CREAT | O_EXCL, 0o600);
    const data = new TextEncoder().encode('hello\n');
    expect(await fs.write(fd, data, 0, data.byteLength)).toBe(6);
    await fs.fsync(fd);
    await fs.ftruncate(fd, 5);
    await fs.close(fd);
    await fs.rename(file, path.join(dir, 'b'));
    expect((await fs.readFile(path.join(dir, 'b'))).toString()).toBe('hello');
    await fs.unlink(path.join(dir, 'b'));
    expect(await readdir(dir)).toEqual([]);
  });

  it('reports a failed call as a rejected promise carrying the OS code, never as a throw', async () => {
    const missing = path.join(dir, 'nope', 'x');
    let opened: Promise<number> | undefined;
    expect(() => {
      opened = fs.open(missing, O_WRONLY | O_CREAT, 0o600);
    }).not.toThrow();
    await expect(opened).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(fs.fsync(987_654)).rejects.toMatchObject({ code: 'EBADF' });
    await expect(fs.rename(missing, path.join(dir, 'y'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('carries a journal and atomic writes end to end', async () => {
    const journal = await openFileJournal(path.join(dir, 'events.ndjson'), { fs });
    journal.append({ type: 'warning', message: 'one' });
    journal.append({ type: 'warning', message: 'two' });
    await journal.flush();
    expect(journal.durableSeq).toBe(2);
    await journal.close();
    await writeFileAtomic(path.join(dir, 'state.json'), '{}\n', { fs });
    const { frames } = await readJournal(path.join(dir, 'events.ndjson'), { fs });
    expect(frames.map((frame) => frame.seq)).toEqual([1, 2]);
    expect((await readdir(dir)).sort()).toEqual(['events.ndjson', 'state.json']);
  });
});

it('syncDir fsyncs a directory, and takes a file system that cannot fsync one (EINVAL) as done', async () => {
  const spy = createFsSpy(fs);
  await syncDir(spy.fs, dir);
  expect(spy.calls.map((call) => call.op)).toEqual(['open', 'fsync', 'close']);
  const unable = createFsSpy(fs, { fault: (call) => (call.op === 'fsync' ? osError('EINVAL', 'fsync') : undefined) });
  await syncDir(unable.fs, dir);
  expect(unable.count('close')).toBe(1);
  const broken = createFsSpy(fs, { fault: (call) => (call.op === 'fsync' ? osError('EIO', 'fsync') : undefined) });
  await expect(syncDir(broken.fs, dir)).rejects.toMatchObject({ code: 'EIO' });
  expect(broken.count('close')).toBe(1);
});
