import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveCli } from './resolve-cli.ts';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'agency-resolve-cli-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(path: string, content: string, mode = 0o755): string {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, content);
  chmodSync(full, mode);
  return full;
}

describe('resolveCli', () => {
  it('follows an npm .bin link into its package and binds the whole package', () => {
    const real = file('tools/node_modules/@acme/cli/bin/cli.exe', '\x7fELF…');
    file('tools/node_modules/@acme/cli/package.json', '{}', 0o644);
    mkdirSync(join(dir, 'tools/node_modules/.bin'));
    symlinkSync('../@acme/cli/bin/cli.exe', join(dir, 'tools/node_modules/.bin/cli'));
    const found = resolveCli({
      name: 'cli',
      envVar: 'CLI_BIN',
      searchPath: `relative:${join(dir, 'tools/node_modules/.bin')}`,
    });
    expect(found).toEqual({ file: real, command: [real], readOnlyPaths: [join(dir, 'tools/node_modules/@acme/cli')] });
  });

  it('puts a script interpreter found through env first, and binds it when it is outside the system dirs', () => {
    const node = file('runtime/bin/node', '\x7fELF…');
    const script = file('scripts/mock.mts', '#!/usr/bin/env -S node --no-warnings\nconsole.log(1)\n');
    const found = resolveCli({ name: 'mock', bin: script, envVar: 'MOCK_BIN', searchPath: join(dir, 'runtime/bin') });
    expect(found).toEqual({
      file: script,
      command: [node, '--no-warnings', script],
      readOnlyPaths: [join(dir, 'scripts'), node],
    });
  });

  it('runs a script of a system interpreter by its path, binding only its own directory', () => {
    const script = file('mock.sh', '#!/bin/sh\necho hi\n');
    expect(resolveCli({ name: 'mock', bin: script, envVar: 'MOCK_BIN' })).toEqual({
      file: script,
      command: [realpathSync('/bin/sh'), script],
      readOnlyPaths: [dir],
    });
  });

  it('names the variable and the install script when the CLI is missing or unusable', () => {
    expect(() => resolveCli({ name: 'claude', envVar: 'CLAUDE_BIN', searchPath: dir })).toThrow(
      /claude was not found on PATH. Fix: set CLAUDE_BIN .*scripts\/ensure-agent-clis.sh/,
    );
    expect(() => resolveCli({ name: 'claude', bin: 'claude', envVar: 'CLAUDE_BIN' })).toThrow(
      'CLAUDE_BIN="claude" must be an absolute path.',
    );
    const notExecutable = file('claude', 'x', 0o644);
    expect(() => resolveCli({ name: 'claude', bin: notExecutable, envVar: 'CLAUDE_BIN' })).toThrow(
      'is not an executable file',
    );
  });
});
