import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../tool-registry.ts';
import { createFileGlobTool } from './file-glob.ts';
import { createFsReadTool } from './fs-read.ts';
import { createFsWriteTool } from './fs-write.ts';

let base: string;
let task: string;
let progress: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'agency-fs-tools-')));
  task = join(base, 'task');
  progress = join(base, 'progress');
  outside = join(base, 'outside');
  for (const dir of [task, progress, outside, join(progress, 'artifacts')]) mkdirSync(dir);
  writeFileSync(join(task, 'brief.md'), '# Brief\nline 2\nline 3\n');
  writeFileSync(join(outside, 'secret.txt'), 'CANARY-SECRET');
  symlinkSync(join(outside, 'secret.txt'), join(task, 'link-out'));
  symlinkSync(outside, join(progress, 'dir-out'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function tools(options: { maxChars?: number; maxFileBytes?: number; maxBytes?: number } = {}) {
  const readRoots = [
    { label: 'task', path: task },
    { label: 'progress', path: progress },
  ];
  const writeRoots = [{ label: 'progress', path: progress }];
  return createToolRegistry([
    createFsReadTool({ roots: readRoots, ...options }),
    createFileGlobTool({ roots: readRoots }),
    createFsWriteTool({ roots: writeRoots, ...options }),
  ]);
}

const call = (toolName: string, input: unknown) => ({ toolCallId: 'c1', toolName, input });
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

describe('fs_read', () => {
  it('reads a whole file with its path, lines, size and hash', async () => {
    const outcome = await tools().run(call('fs_read', { path: 'task/brief.md' }));
    expect(outcome.ok).toBe(true);
    expect(outcome.output).toEqual({
      path: 'task/brief.md',
      content: '# Brief\nline 2\nline 3\n',
      start_line: 1,
      end_line: 3,
      total_lines: 3,
      bytes: 22,
      sha256: sha256('# Brief\nline 2\nline 3\n'),
      truncated: false,
    });
  });

  it('reads a line range, and continues a cut read from next_start_line', async () => {
    const registry = tools({ maxChars: 10 });
    writeFileSync(join(progress, 'long.txt'), 'aaaa\nbbbb\ncccc\ndddd\n');
    const range = await tools().run(call('fs_read', { path: 'progress/long.txt', start_line: 2, end_line: 3 }));
    expect(range.output).toMatchObject({ content: 'bbbb\ncccc\n', start_line: 2, end_line: 3, truncated: false });
    const first = await registry.run(call('fs_read', { path: 'progress/long.txt' }));
    expect(first.output).toMatchObject({ content: 'aaaa\nbbbb\n', end_line: 2, truncated: true, next_start_line: 3 });
    const next = await registry.run(call('fs_read', { path: 'progress/long.txt', start_line: 3 }));
    expect(next.output).toMatchObject({ content: 'cccc\ndddd\n', end_line: 4, truncated: false });
  });

  it('refuses binary files, directories, oversize files and ranges past the end with messages the model can act on', async () => {
    writeFileSync(join(task, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    writeFileSync(join(task, 'big.txt'), 'x'.repeat(2048));
    const registry = tools({ maxFileBytes: 1024 });
    const binary = await registry.run(call('fs_read', { path: 'task/image.png' }));
    expect(binary.error?.code).toBe('content_not_text');
    expect(binary.error?.message).toMatch(/binary file .* fs_read returns text files only/);
    const dir = await registry.run(call('fs_read', { path: 'progress/artifacts' }));
    expect(dir.error?.message).toMatch(/is a directory; list it with file_glob/);
    const big = await registry.run(call('fs_read', { path: 'task/big.txt' }));
    expect(big.error?.message).toMatch(/larger than the 1024-byte limit/);
    const past = await registry.run(call('fs_read', { path: 'task/brief.md', start_line: 9 }));
    expect(past.error?.message).toMatch(/start_line 9 is past the end of "task\/brief.md" \(3 lines\)/);
  });

  it('decodes UTF-16 with a BOM and marks invalid UTF-8', async () => {
    writeFileSync(
      join(task, 'wide.txt'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo\n', 'utf16le')]),
    );
    writeFileSync(join(task, 'latin1.txt'), Buffer.from('caf\xe9\n', 'latin1'));
    const registry = tools();
    expect((await registry.run(call('fs_read', { path: 'task/wide.txt' }))).output).toMatchObject({
      content: 'héllo\n',
    });
    const latin = await registry.run(call('fs_read', { path: 'task/latin1.txt' }));
    expect(latin.output).toMatchObject({ content: 'caf\uFFFD\n', note: expect.stringMatching(/not valid UTF-8/) });
  });

  it.each([
    ['../outside/secret.txt', 'path_outside_scope'],
    ['/etc/passwd', 'path_invalid'],
    ['task/link-out', 'path_symlink_escape'],
    ['progress/dir-out/secret.txt', 'path_symlink_escape'],
    ['task/%2e%2e/%2e%2e/outside/secret.txt', 'path_invalid'],
  ])('refuses the escape %s with %s and never returns the canary', async (path, code) => {
    const outcome = await tools().run(call('fs_read', { path }));
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.code).toBe(code);
    expect(JSON.stringify(outcome)).not.toContain('CANARY-SECRET');
  });
});

describe('file_glob', () => {
  it('lists matches as paths fs_read accepts, and refuses patterns that climb out', async () => {
    writeFileSync(join(progress, 'artifacts', 'a.json'), '{}');
    const registry = tools();
    const found = await registry.run(call('file_glob', { pattern: 'progress/**/*.json' }));
    expect(found.output).toEqual({ paths: ['progress/artifacts/a.json'], truncated: false });
    const climbing = await registry.run(call('file_glob', { pattern: '../outside/*' }));
    expect(climbing.ok).toBe(false);
    const absolute = await registry.run(call('file_glob', { pattern: '/etc/*' }));
    expect(absolute.error?.code).toBe('path_invalid');
  });

  it('caps results at max_results and says so', async () => {
    for (const name of ['a', 'b', 'c']) writeFileSync(join(task, `${name}.txt`), name);
    const outcome = await tools().run(call('file_glob', { pattern: 'task/*.txt', max_results: 2 }));
    expect(outcome.output).toEqual({ paths: ['task/a.txt', 'task/b.txt'], truncated: true });
  });
});

describe('fs_write', () => {
  it('overwrites atomically and returns the path, size and sha256', async () => {
    const registry = tools();
    const first = await registry.run(call('fs_write', { path: 'progress/notes.md', content: 'one' }));
    expect(first.output).toEqual({ path: 'progress/notes.md', mode: 'overwrite', bytes: 3, sha256: sha256('one') });
    await registry.run(call('fs_write', { path: 'notes.md', content: 'two!' }));
    expect(readFileSync(join(progress, 'notes.md'), 'utf8')).toBe('two!');
    expect(readdirSync(progress).filter((name) => name.includes('agency-tmp'))).toEqual([]);
  });

  it('appends, serializing concurrent appends to one file', async () => {
    const registry = tools();
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}\n`);
    await Promise.all(
      lines.map((content) => registry.run(call('fs_write', { path: 'log.txt', content, mode: 'append' }))),
    );
    const text = readFileSync(join(progress, 'log.txt'), 'utf8');
    expect(text.split('\n').filter(Boolean).sort()).toEqual(lines.map((line) => line.trim()).sort());
    const last = await registry.run(call('fs_write', { path: 'log.txt', content: 'end\n', mode: 'append' }));
    expect(last.output).toMatchObject({ bytes: Buffer.byteLength(text) + 4, sha256: sha256(`${text}end\n`) });
  });

  it('creates only when the file is missing, and exactly one of two racing creates wins', async () => {
    const registry = tools();
    const racing = await Promise.all(
      ['a', 'b'].map((content) => registry.run(call('fs_write', { path: 'once.txt', content, mode: 'create' }))),
    );
    expect(racing.filter((outcome) => outcome.ok)).toHaveLength(1);
    const lost = racing.find((outcome) => !outcome.ok);
    expect(lost?.error?.code).toBe('file_exists');
    expect(lost?.error?.message).toMatch(/already exists; use mode "overwrite"/);
    expect(['a', 'b']).toContain(readFileSync(join(progress, 'once.txt'), 'utf8'));
  });

  it('writes base64 content byte for byte', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    const outcome = await tools().run(
      call('fs_write', { path: 'artifacts/blob.bin', content: bytes.toString('base64'), encoding: 'base64' }),
    );
    expect(outcome.output).toMatchObject({ path: 'progress/artifacts/blob.bin', bytes: 5, sha256: sha256(bytes) });
    expect(readFileSync(join(progress, 'artifacts', 'blob.bin'))).toEqual(bytes);
    const bad = await tools().run(call('fs_write', { path: 'x.bin', content: 'not base64!', encoding: 'base64' }));
    expect(bad.error?.message).toMatch(/not valid base64/);
  });

  it('refuses writes over the size limit, including appends that would grow past it', async () => {
    const registry = tools({ maxBytes: 8 });
    const big = await registry.run(call('fs_write', { path: 'big.txt', content: '123456789' }));
    expect(big.error?.code).toBe('limit_exceeded');
    await registry.run(call('fs_write', { path: 'grow.txt', content: '12345' }));
    const grow = await registry.run(call('fs_write', { path: 'grow.txt', content: '6789', mode: 'append' }));
    expect(grow.error?.code).toBe('limit_exceeded');
    expect(readFileSync(join(progress, 'grow.txt'), 'utf8')).toBe('12345');
  });

  it.each([
    ['task/brief.md', 'the read-only task folder'],
    ['../outside/secret.txt', 'a parent directory'],
    ['dir-out/secret.txt', 'a symlinked directory'],
    ['/tmp/agency-escape.txt', 'an absolute path'],
  ])('refuses %s (%s) and leaves everything outside the write root unchanged', async (path) => {
    const outcome = await tools().run(call('fs_write', { path, content: 'PWNED' }));
    expect(outcome.ok).toBe(false);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('CANARY-SECRET');
    expect(readFileSync(join(task, 'brief.md'), 'utf8')).toBe('# Brief\nline 2\nline 3\n');
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });
});
