import { mkdir, mkdtemp, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTempFileName, tempFileName } from '../../core/temp-files.ts';
import { removeStaleTempFiles } from './stale-temps.ts';

describe('tempFileName', () => {
  it('makes hidden, unique names that isTempFileName recognises, short enough for any file system', () => {
    const names = new Set(Array.from({ length: 1000 }, () => tempFileName('report.md')));
    expect(names.size).toBe(1000);
    for (const name of names) expect(isTempFileName(name)).toBe(true);
    const long = tempFileName('é'.repeat(300));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(255);
    expect(isTempFileName('report.md')).toBe(false);
    expect(isTempFileName('notes.agency-tmp')).toBe(false);
  });
});

describe('removeStaleTempFiles', () => {
  it('removes temp files at any depth, keeps everything else, skips the given directories and symlinks', async () => {
    const root = await mkdtemp(join(tmpdir(), 'agency-temps-'));
    const outside = await mkdtemp(join(tmpdir(), 'agency-temps-outside-'));
    await mkdir(join(root, 'artifacts', 'deep'), { recursive: true });
    await mkdir(join(root, 'approvals'), { recursive: true });
    const stray = tempFileName('brief.md');
    await writeFile(join(root, 'artifacts', stray), 'x');
    await writeFile(join(root, 'artifacts', 'deep', stray), 'x');
    await writeFile(join(root, 'artifacts', 'brief.md'), 'kept');
    await writeFile(join(root, 'approvals', stray), 'being written by another process');
    await writeFile(join(outside, stray), 'not ours');
    await symlink(outside, join(root, 'artifacts', 'link'));

    const removed = await removeStaleTempFiles(root, { skip: [join(root, 'approvals')] });
    expect(removed).toEqual([join(root, 'artifacts', stray), join(root, 'artifacts', 'deep', stray)].sort());
    expect(await readdir(join(root, 'artifacts'))).toEqual(['brief.md', 'deep', 'link']);
    expect(await readdir(join(root, 'approvals'))).toEqual([stray]);
    expect(await readdir(outside)).toEqual([stray]);
    expect(await removeStaleTempFiles(join(root, 'missing'))).toEqual([]);
  });
});
