import { execFileSync } from 'node:child_process';
import { mkdtemp, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readInputFile } from './read-input-file.ts';

describe('readInputFile', () => {
  it('reads a regular file as UTF-8', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agency-input-'));
    await writeFile(join(dir, 'text.md'), 'Hello {{name}} — é\n');
    expect(await readInputFile(join(dir, 'text.md'), '--file', 1024)).toBe('Hello {{name}} — é\n');
  });

  it('refuses a FIFO at once rather than waiting for a writer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agency-input-'));
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await expect(readInputFile(fifo, '--file', 1024)).rejects.toThrow(
      `--file: ${fifo} is not a regular file (a folder, a FIFO or a device)`,
    );
  });

  it('refuses a folder, a missing file, a file over the limit (unread) and bytes that are not UTF-8', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agency-input-'));
    await expect(readInputFile(dir, '--file', 1024)).rejects.toThrow('is not a regular file');
    await expect(readInputFile(join(dir, 'none'), '--file', 1024)).rejects.toThrow(
      `--file: ${join(dir, 'none')}: there is no such file`,
    );
    const big = join(dir, 'big');
    await writeFile(big, '');
    await truncate(big, 10 * 1024 * 1024);
    await expect(readInputFile(big, '--file', 262_144)).rejects.toThrow(
      `--file: ${big} is 10485760 bytes, over the 262144-byte limit of a prompt text`,
    );
    await writeFile(join(dir, 'latin1'), Buffer.from([0x68, 0xe9, 0x0a]));
    await expect(readInputFile(join(dir, 'latin1'), '--file', 1024)).rejects.toThrow('is not UTF-8 text');
  });
});
