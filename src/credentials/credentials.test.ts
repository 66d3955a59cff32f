import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createRedactor, REDACTED } from '../core/redact.ts';
import { defineTool } from '../tools/define-tool.ts';
import { toolCredentials, wrapToolWithCredentials } from '../tools/credential-tool.ts';
import { runToolCall } from '../tools/run-tool-call.ts';
import { type CredentialBrokerOptions, createCredentialBroker, type ToolCredentials } from './credential-broker.ts';
import { callback, env, file } from './credential-source.ts';

const TOKEN = 'ghp_BrokerCanary0123456789abcdefghij';
const scratch = () => mkdtempSync(join(tmpdir(), 'agency-cred-test-'));

function broker(options: Partial<CredentialBrokerOptions> & Pick<CredentialBrokerOptions, 'sources'>) {
  const warnings: string[] = [];
  const redactor = createRedactor();
  const tmp = scratch();
  const made = createCredentialBroker({
    redactor,
    env: {},
    tmpDir: tmp,
    logger: { warn: (m) => warnings.push(m) },
    ...options,
  });
  return { broker: made, warnings, redactor, tmp };
}

function secretFile(content: string, mode: number) {
  const path = join(scratch(), 'secret');
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

describe('credential sources', () => {
  it('env: injects the variable only into the tools in scope', async () => {
    const { broker: b, redactor } = broker({
      sources: [{ name: 'github', tools: ['http_fetch'], from: env('GITHUB_TOKEN') }],
      env: { GITHUB_TOKEN: TOKEN },
    });
    expect(b.scopeOf('http_fetch')).toEqual(['github']);
    const seen = await b.withCredentials('http_fetch', (c) => ({ env: { ...c.env }, value: c.get('github') }));
    expect(seen).toEqual({ env: { GITHUB_TOKEN: TOKEN }, value: TOKEN });
    expect(await b.withCredentials('sandbox_exec', (c) => ({ ...c.env }))).toEqual({});
    await expect(b.withCredentials('sandbox_exec', (c) => c.get('github'))).rejects.toThrow(
      'Credential "github" is not in the scope of tool "sandbox_exec"; add "sandbox_exec" to its "tools"',
    );
    // A registered value of a known shape is redacted as that shape.
    expect(redactor.redactText(`x ${TOKEN}`)).toBe('x [REDACTED:github]');
  });

  it('env: a missing variable names it', async () => {
    const { broker: b } = broker({ sources: [{ name: 'github', tools: ['http_fetch'], from: env('GITHUB_TOKEN') }] });
    await expect(b.credentialsFor('http_fetch')).rejects.toMatchObject({
      code: 'credential_unavailable',
      message:
        'Credential "github": environment variable GITHUB_TOKEN is not set. Set GITHUB_TOKEN, or remove the credential.',
      details: { credential: 'github', variable: 'GITHUB_TOKEN' },
    });
  });

  it('file: reads a 0600 file without warning, trimming one trailing newline', async () => {
    const path = secretFile(`${TOKEN}\n`, 0o600);
    const { broker: b, warnings } = broker({ sources: [{ name: 'gh', tools: ['t'], from: file(path) }] });
    expect(await b.withCredentials('t', (c) => c.get('gh'))).toBe(TOKEN);
    expect(warnings).toEqual([]);
  });

  it('file: a looser mode works but warns with the chmod fix; strictMode refuses it', async () => {
    const path = secretFile(TOKEN, 0o644);
    const { broker: b, warnings } = broker({ sources: [{ name: 'gh', tools: ['t'], from: file(path) }] });
    expect(await b.withCredentials('t', (c) => c.get('gh'))).toBe(TOKEN);
    expect(warnings).toEqual([
      `Credential "gh": file ${path} has mode 0644 and is readable by other users; run: chmod 600 ${path}`,
    ]);
    const strict = broker({ sources: [{ name: 'gh', tools: ['t'], from: file(path, { strictMode: true }) }] });
    await expect(strict.broker.credentialsFor('t')).rejects.toThrow(`Run: chmod 600 ${path}`);
  });

  it('file: a missing file is named', async () => {
    const { broker: b } = broker({ sources: [{ name: 'key', tools: ['t'], from: file('/nonexistent/agency/key') }] });
    await expect(b.credentialsFor('t')).rejects.toMatchObject({
      code: 'credential_unavailable',
      message: expect.stringContaining('file /nonexistent/agency/key does not exist'),
      details: { file: '/nonexistent/agency/key' },
    });
  });

  it('callback: is called per use; a failure does not quote the error', async () => {
    let calls = 0;
    const ok = broker({ sources: [{ name: 'vault', tools: ['t'], from: callback(() => `${TOKEN}-${++calls}`) }] });
    await ok.broker.withCredentials('t', () => undefined);
    expect(await ok.broker.withCredentials('t', (c) => c.get('vault'))).toBe(`${TOKEN}-2`);
    const failing = broker({
      sources: [
        {
          name: 'vault',
          tools: ['t'],
          from: callback(() => Promise.reject(new Error(`denied for ${TOKEN}`)), { label: 'vault read' }),
        },
      ],
    });
    const error = await failing.broker.credentialsFor('t').catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'credential_unavailable',
      message: 'Credential "vault": vault read failed. See the cause for why.',
    });
    expect(JSON.stringify(error)).not.toContain(TOKEN);
  });

  it('warns when a value is too short to be redacted', async () => {
    const { broker: b, warnings } = broker({
      sources: [{ name: 'pin', tools: ['t'], from: env('PIN') }],
      env: { PIN: '1234' },
    });
    await b.withCredentials('t', () => undefined);
    expect(warnings).toEqual(['Credential "pin" is shorter than 8 characters, so it cannot be redacted from logs']);
  });
});

describe('file mounts', () => {
  it('writes a 0600 temp file for the call only, giving its path', async () => {
    const { broker: b, tmp } = broker({
      sources: [{ name: 'deploy-key', tools: ['sandbox_exec'], from: env('KEY'), mount: 'file' }],
      env: { KEY: TOKEN },
    });
    let path = '';
    await b.withCredentials('sandbox_exec', (c) => {
      path = c.files['deploy-key'] ?? '';
      expect(c.env).toEqual({ KEY_FILE: path });
      expect(readFileSync(path, 'utf8')).toBe(TOKEN);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    });
    expect(path.startsWith(tmp)).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('deletes the file and forgets the values even when the call throws', async () => {
    const { broker: b, tmp } = broker({
      sources: [
        { name: 'k', tools: ['t'], from: env('KEY'), mount: 'file', envName: 'GOOGLE_APPLICATION_CREDENTIALS' },
      ],
      env: { KEY: TOKEN },
    });
    let kept: ToolCredentials | undefined;
    await expect(
      b.withCredentials('t', (c) => {
        kept = c;
        expect(Object.keys(c.env)).toEqual(['GOOGLE_APPLICATION_CREDENTIALS']);
        throw new Error('tool failed');
      }),
    ).rejects.toThrow('tool failed');
    expect(readdirSync(tmp)).toEqual([]);
    expect(kept?.env).toEqual({});
    expect(() => kept?.get('k')).toThrow('Credential "k" is available only while tool "t" runs');
  });

  it('cleans up files already written when a later credential is unavailable', async () => {
    const { broker: b, tmp } = broker({
      sources: [
        { name: 'a', tools: ['t'], from: env('A'), mount: 'file' },
        { name: 'b', tools: ['t'], from: env('B') },
      ],
      env: { A: TOKEN },
    });
    await expect(b.credentialsFor('t')).rejects.toThrow(/B is not set/);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('wrapToolWithCredentials', () => {
  const echo = defineTool({
    name: 'http_fetch',
    description: 'Fetches',
    input: z.object({ wait: z.boolean().default(false) }),
    effects: 'network',
    timeoutMs: 50,
    execute: async ({ wait }, context) => {
      const credentials = toolCredentials(context);
      if (wait) await new Promise((resolve) => setTimeout(resolve, 200));
      return { hasToken: credentials.get('github') === TOKEN, files: { ...credentials.files } };
    },
  });

  it('gives the tool its credentials through its context during the call only', async () => {
    const { broker: b } = broker({
      sources: [{ name: 'github', tools: ['http_fetch'], from: env('T') }],
      env: { T: TOKEN },
    });
    const outcome = await runToolCall(wrapToolWithCredentials(echo, b), {
      toolCallId: 'c',
      toolName: 'http_fetch',
      input: {},
    });
    expect(outcome).toMatchObject({ ok: true, output: { hasToken: true } });
  });

  it('disposes of the credentials as soon as the call times out', async () => {
    const { broker: b, tmp } = broker({
      sources: [{ name: 'github', tools: ['http_fetch'], from: env('T'), mount: 'file' }],
      env: { T: TOKEN },
    });
    const outcome = await runToolCall(wrapToolWithCredentials(echo, b), {
      toolCallId: 'c',
      toolName: 'http_fetch',
      input: { wait: true },
    });
    expect(outcome.error?.code).toBe('tool_timeout');
    // The tool itself sleeps 200 ms more: the files go on the abort, not when it returns.
    await vi.waitFor(() => expect(readdirSync(tmp)).toEqual([]), { timeout: 120, interval: 5 });
  });

  it('fails the call naming the missing variable, and an unwrapped tool has no credentials', async () => {
    const { broker: b } = broker({ sources: [{ name: 'github', tools: ['http_fetch'], from: env('GITHUB_TOKEN') }] });
    const missing = await runToolCall(wrapToolWithCredentials(echo, b), {
      toolCallId: 'c',
      toolName: 'http_fetch',
      input: {},
    });
    expect(missing.error).toMatchObject({
      code: 'credential_unavailable',
      message: expect.stringContaining('GITHUB_TOKEN is not set'),
    });
    const bare = await runToolCall(echo, { toolCallId: 'c', toolName: 'http_fetch', input: {} });
    expect(bare.error).toMatchObject({
      code: 'credential_unavailable',
      message: expect.stringContaining('wrapToolWithCredentials'),
    });
  });
});

describe('createCredentialBroker', () => {
  it('preload registers every value with the redactor up front', async () => {
    const { broker: b, redactor } = broker({
      sources: [
        { name: 'a', tools: ['t'], from: env('A') },
        { name: 'b', tools: ['u'], from: callback(() => 'callback-secret-value') },
      ],
      env: { A: TOKEN },
    });
    await b.preload();
    expect(redactor.redactText(`${TOKEN} callback-secret-value`)).toBe(`[REDACTED:github] ${REDACTED}`);
  });

  it.each([
    [{ name: 'bad name', tools: ['t'], from: env('X') }, /sources\[0\]\.name must be/],
    [{ name: 'a', tools: [], from: env('X') }, /sources\[0\]\.tools must list/],
    [{ name: 'a', tools: ['t'], from: {} }, /sources\[0\]\.from must be env/],
    [{ name: 'a', tools: ['t'], from: env('X'), envName: 'A-B' }, /sources\[0\]\.envName must be a variable name/],
  ])('rejects a malformed source (%#)', (spec, message) => {
    expect(() => createCredentialBroker({ sources: [spec as never] })).toThrow(message);
  });

  it('rejects duplicate names', () => {
    const spec = { name: 'a', tools: ['t'], from: env('X') };
    expect(() => createCredentialBroker({ sources: [spec, spec] })).toThrow(/sources\[1\]\.name "a" is used twice/);
  });
});

describe('mounts left by a killed holder', () => {
  const brokerModule = new URL('./credential-broker.ts', import.meta.url).pathname;
  const sourceModule = new URL('./credential-source.ts', import.meta.url).pathname;

  // A real process mounts a credential file, reports its path, and hangs inside the call until SIGKILL.
  async function killHolderMidCall(tmp: string): Promise<string> {
    const script = `
      import { createCredentialBroker } from ${JSON.stringify(brokerModule)};
      import { env } from ${JSON.stringify(sourceModule)};
      const broker = createCredentialBroker({
        sources: [{ name: 'key', tools: ['t'], from: env('KEY'), mount: 'file' }],
        env: { KEY: ${JSON.stringify(TOKEN)} }, tmpDir: ${JSON.stringify(tmp)},
      });
      await broker.withCredentials('t', (c) => { console.log(c.files.key); return new Promise(() => {}); });`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    return line.toString().trim();
  }

  it('the next broker removes them before its first file mount, and warns', async () => {
    const {
      broker: b,
      tmp,
      warnings,
    } = broker({
      sources: [{ name: 'k', tools: ['t'], from: env('KEY'), mount: 'file' }],
      env: { KEY: TOKEN },
    });
    const orphan = await killHolderMidCall(tmp);
    expect(readFileSync(orphan, 'utf8')).toBe(TOKEN);
    const live = join(tmp, `agency-cred-${process.ppid}-abcdef`);
    const unrelated = join(tmp, 'agency-cred-notes');
    mkdirSync(live);
    mkdirSync(unrelated);

    await b.withCredentials('t', (c) => expect(readFileSync(c.files.k ?? '', 'utf8')).toBe(TOKEN));
    expect(existsSync(orphan)).toBe(false);
    expect(readdirSync(tmp).sort()).toEqual([basename(live), basename(unrelated)].sort());
    expect(warnings).toEqual([
      `Removed 1 credential mount(s) left in ${tmp} by killed processes: ${basename(dirname(orphan))}`,
    ]);
  });
});
