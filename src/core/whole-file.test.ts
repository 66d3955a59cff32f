import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const refuseLinks = vi.hoisted(() => ({ on: false }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const link: typeof fs.link = async (...args) => {
    if (refuseLinks.on) throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' });
    return fs.link(...args);
  };
  return { ...fs, link };
});

const { createWhole, removeStale } = await import('./whole-file.ts');

const dirs: string[] = [];
afterEach(async () => {
  refuseLinks.on = false;
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agency-whole-file-'));
  dirs.push(dir);
  return dir;
}

describe('createWhole', () => {
  it('creates the file once: of 20 racing creators one wins, the file holds its whole text, no temp file is left', async () => {
    const dir = await tempDir();
    const file = join(dir, 'run.lock');
    const texts = Array.from({ length: 20 }, (_, index) => `${JSON.stringify({ index, pad: 'x'.repeat(4096) })}\n`);
    const won = await Promise.all(texts.map((text) => createWhole(file, text, 0o644)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await readFile(file, 'utf8')).toBe(texts[won.indexOf(true)]);
    expect(await readdir(dir)).toEqual(['run.lock']);
  });

  it('falls back to an exclusive open where the file system refuses hard links', async () => {
    const dir = await tempDir();
    const file = join(dir, 'run.lock');
    refuseLinks.on = true;
    expect(await createWhole(file, 'first\n', 0o600)).toBe(true);
    expect(await createWhole(file, 'second\n', 0o600)).toBe(false);
    expect(await readFile(file, 'utf8')).toBe('first\n');
    expect(await readdir(dir)).toEqual(['run.lock']);
  });
});

describe('removeStale', () => {
  it('removes the file judged stale, and puts back one another process put in its place', async () => {
    const dir = await tempDir();
    const file = join(dir, 'lock');
    await writeFile(file, 'stale');
    await removeStale(file, async (moved) => (await readFile(moved, 'utf8')) === 'stale');
    expect(await readdir(dir)).toEqual([]);
    await writeFile(file, 'taken since');
    await removeStale(file, async (moved) => (await readFile(moved, 'utf8')) === 'stale');
    expect(await readFile(file, 'utf8')).toBe('taken since');
    expect(await readdir(dir)).toEqual(['lock']);
    await removeStale(join(dir, 'gone'), async () => true);
  });
});
