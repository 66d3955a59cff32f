import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexArgs } from './codex-args.ts';
import { codexConfigToml, readThread, recordThread, writeCodexConfig } from './codex-home.ts';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'agency-codex-home-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('Codex home', () => {
  it('writes a model_provider for the endpoint, replacing what a task left in config.toml', async () => {
    writeFileSync(join(home, 'config.toml'), 'model_provider = "evil"\n');
    await writeCodexConfig(home, { baseUrl: 'http://127.0.0.1:9/v1', requestMaxRetries: 0, name: 'say "hi"' });
    expect(readFileSync(join(home, 'config.toml'), 'utf8')).toBe(
      [
        "# Written by agency's Codex executor before every run; changes here are replaced.",
        'model_provider = "agency"',
        '',
        '[model_providers.agency]',
        'name = "say \\"hi\\""',
        'base_url = "http://127.0.0.1:9/v1"',
        'env_key = "OPENAI_API_KEY"',
        'wire_api = "responses"',
        'request_max_retries = 0',
        '',
      ].join('\n'),
    );
    expect(codexConfigToml(undefined)).not.toContain('model_provider');
  });

  it('remembers the thread of a session, and ignores a file that is not a thread id', async () => {
    const session = '6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e5f';
    expect(await readThread(home, session)).toBeUndefined();
    await recordThread(home, session, '01a2138e-81ad-7133-a977-c7bd5a8a14bb');
    expect(await readThread(home, session)).toBe('01a2138e-81ad-7133-a977-c7bd5a8a14bb');
    writeFileSync(join(home, 'agency-sessions', session), '--last; rm -rf /\n');
    expect(await readThread(home, session)).toBeUndefined();
  });
});

describe('codexArgs', () => {
  it('runs codex exec, or codex exec resume with the thread, the prompt always on stdin', () => {
    expect(codexArgs({ resume: undefined, model: 'gpt-5' })).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '--model',
      'gpt-5',
      '-',
    ]);
    expect(codexArgs({ resume: 'abc', model: undefined }).slice(0, 2)).toEqual(['exec', 'resume']);
    expect(codexArgs({ resume: 'abc', model: undefined }).slice(-2)).toEqual(['abc', '-']);
    expect(codexArgs({ resume: 'last', model: undefined }).slice(-2)).toEqual(['--last', '-']);
  });
});
