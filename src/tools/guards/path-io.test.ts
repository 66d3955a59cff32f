import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { link, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { readFileInScope, writeFileAtomicInScope } from './path-io.ts';
import { openInScope } from './path-open.ts';

let top: string;
let roots: string[];

beforeEach(async () => {
  top = await mkdtemp(path.join(os.tmpdir(), 'agency-io-'));
  await mkdir(path.join(top, 'progress', 'sub'), { recursive: true });
  await mkdir(path.join(top, 'outside'));
  await writeFile(path.join(top, 'outside', 'shared.txt'), 'outside original\n');
  await writeFile(path.join(top, 'progress', 'notes.md'), 'notes\n');
  roots = [path.join(top, 'progress')];
});

afterEach(async () => {
  await rm(top, { recursive: true, force: true });
});

async function codeOf(action: Promise<unknown>): Promise<string | undefined> {
  const error = await action.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  return AgencyError.isInstance(error) ? error.code : `not an AgencyError: ${String(error)}`;
}

describe('readFileInScope', () => {
  it('reads a file and honours maxBytes', async () => {
    expect((await readFileInScope(roots, 'notes.md', { maxBytes: 6 })).toString()).toBe('notes\n');
    expect(await codeOf(readFileInScope(roots, 'notes.md', { maxBytes: 5 }))).toBe('invalid_argument');
    expect(await codeOf(readFileInScope(roots, 'notes.md', { maxBytes: -1 }))).toBe('invalid_argument');
  });

  it('reads an empty file and a file larger than one chunk', async () => {
    await writeFile(path.join(top, 'progress', 'empty.txt'), '');
    await writeFile(path.join(top, 'progress', 'big.bin'), Buffer.alloc(200_000, 7));
    expect((await readFileInScope(roots, 'empty.txt')).length).toBe(0);
    expect((await readFileInScope(roots, 'big.bin')).equals(Buffer.alloc(200_000, 7))).toBe(true);
  });

  it('refuses a FIFO without hanging', async () => {
    execFileSync('mkfifo', [path.join(top, 'progress', 'pipe')]);
    expect(await codeOf(readFileInScope(roots, 'pipe'))).toBe('path_invalid');
    expect(await codeOf(openInScope(roots, 'pipe', 'write'))).toBe('path_invalid');
  });
});

describe('writeFileAtomicInScope', () => {
  it('creates and replaces files, leaving no temp files behind', async () => {
    const created = await writeFileAtomicInScope(roots, 'sub/new.md', 'one\n');
    expect(created).toMatchObject({ path: path.join(top, 'progress', 'sub', 'new.md'), relative: 'sub/new.md' });
    await writeFileAtomicInScope(roots, 'sub/new.md', new TextEncoder().encode('two\n'));
    expect(await readFile(path.join(top, 'progress', 'sub', 'new.md'), 'utf8')).toBe('two\n');
    expect(await readdir(path.join(top, 'progress', 'sub'))).toEqual(['new.md']);
  });

  it('refuses data over maxBytes before touching the disk', async () => {
    expect(await codeOf(writeFileAtomicInScope(roots, 'big.md', 'x'.repeat(11), { maxBytes: 10 }))).toBe(
      'invalid_argument',
    );
    expect(await readdir(path.join(top, 'progress'))).toEqual(['notes.md', 'sub']);
  });

  it('replaces a hard link instead of writing through it', async () => {
    await link(path.join(top, 'outside', 'shared.txt'), path.join(top, 'progress', 'hard.txt'));
    await writeFileAtomicInScope(roots, 'hard.txt', 'replaced\n');
    expect(await readFile(path.join(top, 'progress', 'hard.txt'), 'utf8')).toBe('replaced\n');
    expect(await readFile(path.join(top, 'outside', 'shared.txt'), 'utf8')).toBe('outside original\n');
  });
});

describe('openInScope', () => {
  it('opens for reading with default flags', async () => {
    const handle = await openInScope(roots, 'notes.md', 'read');
    try {
      expect(await handle.readFile('utf8')).toBe('notes\n');
    } finally {
      await handle.close();
    }
  });

  it('creates a file with create mode', async () => {
    const handle = await openInScope(roots, 'made.txt', 'create');
    await handle.writeFile('made\n');
    await handle.close();
    expect(await readFile(path.join(top, 'progress', 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('honours O_EXCL in create mode', async () => {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
    expect(await codeOf(openInScope(roots, 'notes.md', 'create', flags))).toBe('path_invalid');
  });

  it('truncates only after the hard-link check passes', async () => {
    await link(path.join(top, 'outside', 'shared.txt'), path.join(top, 'progress', 'hard.txt'));
    const flags = constants.O_WRONLY | constants.O_TRUNC;
    expect(await codeOf(openInScope(roots, 'hard.txt', 'create', flags | constants.O_CREAT))).toBe('path_invalid');
    expect(await codeOf(openInScope(roots, 'hard.txt', 'write', flags))).toBe('path_invalid');
    expect(await readFile(path.join(top, 'outside', 'shared.txt'), 'utf8')).toBe('outside original\n');
    expect((await stat(path.join(top, 'outside', 'shared.txt'))).size).toBe('outside original\n'.length);
  });

  it.each([
    ['read with O_WRONLY', 'read', constants.O_WRONLY],
    ['read with O_CREAT', 'read', constants.O_RDONLY | constants.O_CREAT],
    ['read with O_TRUNC', 'read', constants.O_RDONLY | constants.O_TRUNC],
    ['write with O_RDONLY', 'write', constants.O_RDONLY],
    ['write with O_CREAT', 'write', constants.O_WRONLY | constants.O_CREAT],
    ['create with O_RDONLY', 'create', constants.O_RDONLY],
    ['a negative number', 'read', -1],
    ['read with O_DIRECTORY', 'read', constants.O_RDONLY | constants.O_DIRECTORY],
  ] as const)('refuses flags: %s', async (_, mode, flags) => {
    expect(await codeOf(openInScope(roots, 'notes.md', mode, flags))).toBe('invalid_argument');
  });

  it('refuses to open a root directory', async () => {
    expect(await codeOf(openInScope(roots, '.', 'read'))).toBe('path_invalid');
  });
});
