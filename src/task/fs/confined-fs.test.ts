import { constants } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../core/error-codes.ts';
import { AgencyError } from '../../core/errors.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { confineFs } from './confined-fs.ts';
import { nodeDurableFs as port } from './durable-fs.ts';
import { createTaskFiles } from './task-files.ts';

let base: string;
let root: string;
let outside: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'agency-confined-'));
  root = path.join(base, 'task');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'progress', 'plan'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'host secret\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const isCode = (code: ErrorCode) => (error: unknown) => AgencyError.hasCode(error, code);
const isOs = (code: string) => (error: unknown) => (error as { code?: unknown }).code === code;

describe('confineFs', () => {
  it('writes and reads files under its root', async () => {
    const fs = confineFs(port, root);
    const file = path.join(root, 'progress', 'plan', 'current.json');
    await writeFileAtomic(file, '{}\n', { fs });
    expect((await fs.readFile(file)).toString()).toBe('{}\n');
    expect((await fs.readdir(path.join(root, 'progress'))).map((entry) => entry.name)).toEqual(['plan']);
  });

  it('refuses a directory on the way that is a link, for every call, and writes nothing through it', async () => {
    await rm(path.join(root, 'progress', 'plan'), { recursive: true });
    await symlink(outside, path.join(root, 'progress', 'plan'));
    const fs = confineFs(port, root);
    const file = path.join(root, 'progress', 'plan', 'current.json');
    await expect(writeFileAtomic(file, 'x', { fs })).rejects.toSatisfy(isCode('file_write_failed'));
    await expect(fs.readFile(path.join(root, 'progress', 'plan', 'secret.txt'))).rejects.toSatisfy(
      isCode('path_symlink_escape'),
    );
    await expect(fs.readdir(path.join(root, 'progress', 'plan'))).rejects.toSatisfy(isCode('path_symlink_escape'));
    await expect(fs.mkdir(path.join(root, 'progress', 'plan', 'd'))).rejects.toSatisfy(isCode('path_symlink_escape'));
    await expect(fs.open(file, constants.O_WRONLY | constants.O_CREAT, 0o644)).rejects.toThrow(/symbolic link/);
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  it('never follows a link at the last component', async () => {
    const link = path.join(root, 'progress', 'state.json');
    await symlink(path.join(outside, 'secret.txt'), link);
    const fs = confineFs(port, root);
    await expect(fs.readFile(link)).rejects.toSatisfy(isOs('ELOOP'));
    await expect(fs.open(link, constants.O_WRONLY)).rejects.toSatisfy(isOs('ELOOP'));
    // An atomic replace renames over the link itself; the file it pointed at is untouched.
    await writeFileAtomic(link, 'new state\n', { fs });
    expect(await readFile(link, 'utf8')).toBe('new state\n');
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('host secret\n');
  });

  it('refuses a path outside its root, however it is spelled', async () => {
    const fs = confineFs(port, root);
    await expect(fs.readFile(path.join(outside, 'secret.txt'))).rejects.toSatisfy(isCode('path_outside_scope'));
    await expect(fs.readFile(path.join(root, '..', 'outside', 'secret.txt'))).rejects.toSatisfy(
      isCode('path_outside_scope'),
    );
  });
});

describe('createTaskFiles', () => {
  it('reads a FIFO planted under a control file name as an error, without waiting on it', async () => {
    const fifo = path.join(root, 'progress', 'notes.md');
    execFileSync('mkfifo', [fifo]);
    const files = createTaskFiles(root);
    await expect(files.readText(fifo)).rejects.toSatisfy(isCode('path_invalid'));
  });

  it('names a planted link when it reads, and refuses to create directories through one', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'progress', 'findings.md'));
    await symlink(outside, path.join(root, 'progress', 'steps'));
    const files = createTaskFiles(root);
    await expect(files.readText(path.join(root, 'progress', 'findings.md'))).rejects.toThrow(
      /findings\.md is a symbolic link/,
    );
    await expect(files.ensureDir(path.join(root, 'progress', 'steps', '0001-gather'))).rejects.toSatisfy(
      isCode('path_symlink_escape'),
    );
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  it('scrubs what it writes', async () => {
    const files = createTaskFiles(root, { redactText: (text) => text.replaceAll('hunter2', '[REDACTED]') });
    const file = path.join(root, 'progress', 'notes.md');
    await files.write(file, 'password hunter2\n');
    expect(await readFile(file, 'utf8')).toBe('password [REDACTED]\n');
  });
});
