import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { nodeDurableFs as base } from './durable-fs.ts';
import { createFsSpy, type FsOp, osError } from '../../../test/support/fs-spy.ts';

let dir: string;
let target: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agency-atomic-'));
  target = path.join(dir, 'state.json');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  const failOn = (op: FsOp, code = 'EIO') =>
    createFsSpy(base, { fault: (c) => (c.op === op ? osError(code, op) : undefined) });

  it('creates and replaces a file: temp file, fsync, rename, fsync of the directory', async () => {
    const spy = createFsSpy(base);
    await writeFileAtomic(target, 'one\n', { fs: spy.fs });
    await writeFileAtomic(target, new TextEncoder().encode('two\n'), { fs: spy.fs });
    expect(await readFile(target, 'utf8')).toBe('two\n');
    expect(await readdir(dir)).toEqual(['state.json']);
    expect(spy.calls.slice(0, 7).map((c) => c.op)).toEqual([
      'open',
      'write',
      'fsync',
      'close',
      'rename',
      'open',
      'fsync',
    ]);
    const temp = String(spy.calls[0]?.target);
    expect(path.dirname(temp)).toBe(dir);
    expect(path.basename(temp)).toMatch(/^\.state\.json\.[0-9a-f]{12}\.agency-tmp$/);
    expect(spy.calls[5]?.target).toBe(dir);
    expect((await stat(target)).mode & 0o777).toBe(0o644);
  });

  for (const op of ['write', 'fsync', 'rename'] as const) {
    it(`EIO at ${op} (injected through the fs port): the target is untouched and no temp file is left`, async () => {
      await writeFile(target, 'old\n');
      const error = await writeFileAtomic(target, 'new\n', { fs: failOn(op).fs }).catch((e: unknown) => e);
      expect(AgencyError.hasCode(error, 'file_write_failed')).toBe(true);
      expect((error as AgencyError).message).toContain(`${target}: ${op} failed (EIO`);
      expect((error as AgencyError).message).toContain('the file is unchanged');
      expect((error as AgencyError).details).toMatchObject({ path: target, os_code: 'EIO' });
      expect((error as AgencyError).cause).toMatchObject({ code: 'EIO' });
      expect(await readFile(target, 'utf8')).toBe('old\n');
      expect(await readdir(dir)).toEqual(['state.json']);
    });
  }

  it('without durable, replaces the file the same way and fsyncs nothing', async () => {
    const spy = createFsSpy(base);
    await writeFileAtomic(target, 'one\n', { fs: spy.fs, durable: false });
    await writeFileAtomic(target, 'two\n', { fs: spy.fs, durable: false });
    expect(spy.calls.map((c) => c.op)).toEqual([
      'open',
      'write',
      'close',
      'rename',
      'open',
      'write',
      'close',
      'rename',
    ]);
    expect(spy.calls[0]?.target).not.toBe(spy.calls[4]?.target);
    expect(await readFile(target, 'utf8')).toBe('two\n');
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('ENOSPC while creating the temp file (injected): the error names the file and the OS code', async () => {
    const error = await writeFileAtomic(target, 'x', { fs: failOn('open', 'ENOSPC').fs }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'file_write_failed', details: { path: target, os_code: 'ENOSPC' } });
    expect(await readdir(dir)).toEqual([]);
  });

  it('a failed directory fsync rejects and says the new content may not survive a power loss', async () => {
    let fsyncs = 0;
    const spy = createFsSpy(base, {
      fault: (c) => (c.op === 'fsync' && ++fsyncs === 2 ? osError('EIO', 'fsync') : undefined),
    });
    const error = await writeFileAtomic(target, 'new\n', { fs: spy.fs }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'file_write_failed', details: { step: 'fsync of the directory' } });
    expect((error as Error).message).toContain('may not survive a power loss');
    expect(spy.count('close')).toBe(2);
  });

  it('refuses to follow a missing directory, with the OS code', async () => {
    const missing = path.join(dir, 'nope', 'state.json');
    await expect(writeFileAtomic(missing, 'x', { fs: base })).rejects.toMatchObject({
      code: 'file_write_failed',
      details: { path: missing, os_code: 'ENOENT' },
    });
  });
});
