import { constants } from 'node:fs';
import { link, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { readFileInScope, writeFileAtomicInScope } from './path-io.ts';
import { openInScope } from './path-open.ts';
import { resolveInScope } from './path-resolve.ts';
import type { PathRoot } from './path-roots.ts';

// A governed run's progress/ folder: only artifacts/ and notes.md are writable; the rest belongs to the runner.
const CONTROL: Record<string, string> = {
  'spec.json': '{"approvals":"file"}\n',
  'state.json': '{"phase":"act"}\n',
  'events.ndjson': '{"seq":1}\n',
  'plan/0001.json': '{"version":"plan.v1"}\n',
  'approvals/decisions/.keep': '',
};

let progress: string;
let roots: PathRoot[];

beforeEach(async () => {
  const top = await mkdtemp(path.join(os.tmpdir(), 'agency-writable-'));
  progress = path.join(top, 'progress');
  await mkdir(path.join(progress, 'approvals', 'decisions'), { recursive: true });
  await mkdir(path.join(progress, 'plan'));
  await mkdir(path.join(progress, 'artifacts'));
  for (const [name, content] of Object.entries(CONTROL)) await writeFile(path.join(progress, name), content);
  await writeFile(path.join(progress, 'notes.md'), '# Notes\n');
  roots = [{ label: 'progress', path: progress, writable: ['artifacts', 'notes.md'] }];
});

afterEach(async () => {
  await rm(path.dirname(progress), { recursive: true, force: true });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (AgencyError.isInstance(error)) return error.code;
    throw error;
  }
  return 'ok';
}

async function controlUntouched(): Promise<void> {
  for (const [name, content] of Object.entries(CONTROL)) {
    expect(await readFile(path.join(progress, name), 'utf8')).toBe(content);
  }
  expect(await readdir(path.join(progress, 'approvals', 'decisions'))).toEqual(['.keep']);
  expect((await readdir(path.join(progress, 'plan'))).sort()).toEqual(['0001.json']);
  expect((await readdir(progress)).sort()).toEqual(
    ['approvals', 'artifacts', 'events.ndjson', 'notes.md', 'plan', 'spec.json', 'state.json'].sort(),
  );
}

describe('writable sub-paths of a root', () => {
  it('refuses every write through a planted directory link artifacts/p -> .. on the resolved path', async () => {
    await symlink('..', path.join(progress, 'artifacts', 'p'));
    for (const name of ['spec.json', 'state.json', 'events.ndjson', 'plan/0001.json', 'approvals/decisions/x.json']) {
      const named = `progress/artifacts/p/${name}`;
      expect(await codeOf(writeFileAtomicInScope(roots, named, 'forged'))).toBe('path_read_only');
      expect(await codeOf(resolveInScope(roots, named, 'create'))).toBe('path_read_only');
      expect(await codeOf(openInScope(roots, named, 'create'))).toBe('path_read_only');
    }
    const flags = constants.O_WRONLY | constants.O_APPEND;
    expect(await codeOf(openInScope(roots, 'progress/artifacts/p/events.ndjson', 'write', flags))).toBe(
      'path_read_only',
    );
    await controlUntouched();
  });

  it('refuses control files by any name, and allows the writable ones by any name', async () => {
    await symlink('..', path.join(progress, 'artifacts', 'p'));
    expect(await codeOf(writeFileAtomicInScope(roots, 'progress/spec.json', 'x'))).toBe('path_read_only');
    expect(await codeOf(writeFileAtomicInScope(roots, 'artifacts/../plan/0002.json', 'x'))).toBe('path_read_only');
    expect(await codeOf(writeFileAtomicInScope(roots, 'progress/new.md', 'x'))).toBe('path_read_only');
    await controlUntouched();
    await writeFileAtomicInScope(roots, 'progress/artifacts/p/notes.md', 'via the link\n');
    expect(await readFile(path.join(progress, 'notes.md'), 'utf8')).toBe('via the link\n');
    await writeFileAtomicInScope(roots, 'progress/artifacts/p/artifacts/out.md', 'out\n');
    expect(await readFile(path.join(progress, 'artifacts', 'out.md'), 'utf8')).toBe('out\n');
    // Temp files of atomic writes are not in the list; they sit beside a writable target and are allowed.
    expect((await readdir(progress)).filter((name) => name.endsWith('.agency-tmp'))).toEqual([]);
  });

  it('refuses a directory link to a control folder (artifacts/d -> ../approvals)', async () => {
    await symlink('../approvals', path.join(progress, 'artifacts', 'd'));
    expect(await codeOf(writeFileAtomicInScope(roots, 'progress/artifacts/d/decisions/x.json', '{}'))).toBe(
      'path_read_only',
    );
    await controlUntouched();
  });

  it('refuses writes through a file link artifacts/x -> ../state.json, and reads through it', async () => {
    await symlink('../state.json', path.join(progress, 'artifacts', 'x'));
    expect(await codeOf(writeFileAtomicInScope(roots, 'progress/artifacts/x', 'forged'))).toBe('path_invalid');
    expect(await codeOf(openInScope(roots, 'progress/artifacts/x', 'write'))).toBe('path_invalid');
    // Reading is allowed: the model may read progress/state.json by its own name anyway.
    expect((await readFileInScope(roots, 'progress/artifacts/x')).toString()).toBe(CONTROL['state.json']);
    await controlUntouched();
  });

  it('never writes a control file through a hard link in artifacts/', async () => {
    await link(path.join(progress, 'state.json'), path.join(progress, 'artifacts', 'h'));
    const flags = constants.O_WRONLY | constants.O_TRUNC;
    expect(await codeOf(openInScope(roots, 'progress/artifacts/h', 'write', flags))).toBe('path_invalid');
    expect(await codeOf(openInScope(roots, 'progress/artifacts/h', 'create'))).toBe('path_invalid');
    // An atomic replace renames over the name artifacts/h; state.json keeps its inode and content.
    await writeFileAtomicInScope(roots, 'progress/artifacts/h', 'replaced\n');
    expect(await readFile(path.join(progress, 'artifacts', 'h'), 'utf8')).toBe('replaced\n');
    await controlUntouched();
  });

  it('leaves roots without a writable list writable everywhere, and checks the harness’s list', async () => {
    await writeFileAtomicInScope([progress], 'spec.json', 'harness\n');
    expect(await readFile(path.join(progress, 'spec.json'), 'utf8')).toBe('harness\n');
    for (const writable of [['..'], ['/abs'], ['a/./b'], [''], 'artifacts']) {
      const bad = [{ label: 'progress', path: progress, writable: writable as string[] }];
      expect(await codeOf(writeFileAtomicInScope(bad, 'artifacts/x', 'x'))).toBe('invalid_argument');
    }
  });
});
