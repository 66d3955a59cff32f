import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveCli } from '../cli/resolve-cli.ts';
import { locateCodex } from './locate-codex.ts';

let modules: string;
beforeEach(() => {
  modules = join(realpathSync(mkdtempSync(join(tmpdir(), 'agency-locate-codex-'))), 'node_modules');
});
afterEach(() => rmSync(join(modules, '..'), { recursive: true, force: true }));

function write(path: string, content: string, mode = 0o644): string {
  const full = join(modules, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, content);
  chmodSync(full, mode);
  return full;
}

describe('locateCodex', () => {
  it("swaps the npm launcher for the platform package's native binary, bound as a whole", () => {
    const launcher = write('@openai/codex/bin/codex.js', '#!/usr/bin/env node\n', 0o755);
    write('@openai/codex/package.json', '{}');
    write('@openai/codex-linux-x64/package.json', '{"name":"@openai/codex-linux-x64"}');
    const binary = write('@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex', '\x7fELF', 0o755);
    const found = {
      file: launcher,
      command: ['/usr/bin/node', launcher],
      readOnlyPaths: [join(modules, '@openai/codex')],
    };
    expect(locateCodex(found, { platform: 'linux', arch: 'x64' })).toEqual({
      file: binary,
      command: [binary],
      readOnlyPaths: [join(modules, '@openai/codex-linux-x64')],
    });
  });

  it('says how to fix a missing platform package, and leaves a native codex alone', () => {
    const launcher = write('@openai/codex/bin/codex.js', '#!/usr/bin/env node\n', 0o755);
    const found = { file: launcher, command: [launcher], readOnlyPaths: [] };
    expect(() => locateCodex(found, { platform: 'linux', arch: 'x64' })).toThrow(/reinstall @openai\/codex/);
    const native = write('bin/codex', '\x7fELF', 0o755);
    const direct = resolveCli({ name: 'codex', bin: native, envVar: 'CODEX_BIN' });
    expect(locateCodex(direct)).toBe(direct);
  });
});
