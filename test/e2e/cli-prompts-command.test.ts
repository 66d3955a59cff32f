// `agency prompts` and the operator config's `prompts` key, through the real CLI (bin/agency.js, from dist/).
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { agency, cli } from '../support/cli.ts';
import { makeTaskFolder } from '../support/governed-fixture.ts';
import { startPostgres, type TempPostgres } from '../support/postgres.ts';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';

const PLAN_V3 = 'Phase: PLAN. Answer with the plan as JSON.\nTools you may allow:\n{{tools}}\n';
const PLAN_V4 = 'Phase: PLAN. Answer with the plan as JSON, nothing else.\nTools:\n{{tools}}\n';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'agency-prompts-cmd-'));
}

// A data root of the test's own for every command, so nothing reads or writes the user's.
let env: Record<string, string>;
beforeAll(async () => {
  env = { AGENCY_ROOT: await tempDir(), AGENCY_CONFIG: '' };
});

const run = (args: string[]) => cli(['prompts', ...args], env);

// `agency …args` with `input` on standard input.
function withInput(args: string[], input: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [agency, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    // The command may stop reading before the end (an input over the limit): that is not the test's failure.
    child.stdin.on('error', () => {});
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('agency prompts on a folder', () => {
  it('puts two versions after the built-in ones, then lists, shows, diffs and audits them', async () => {
    const work = await tempDir();
    const dir = join(work, 'prompts');
    await writeFile(join(work, 'v3.md'), PLAN_V3);
    const first = await run(['put', 'runner.plan', '--dir', dir, '--file', join(work, 'v3.md'), '--by', 'alice']);
    expect(first).toMatchObject({ code: 0, stdout: 'runner.plan@3\n' });
    const second = await withInput(
      ['prompts', 'put', 'runner.plan', '--dir', dir, '--file', '-', '--metadata', '{"note":"terser"}'],
      PLAN_V4,
    );
    expect(second).toMatchObject({ code: 0, stdout: 'runner.plan@4\n' });
    expect(await readdir(join(dir, 'runner.plan'))).toEqual(['3.md', '4.md']);

    const ls = await run(['ls', '--dir', dir]);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/^VERSION +SOURCE +BY +CREATED +VARIABLES\n/);
    expect(ls.stdout).toMatch(/^runner\.plan@4 +store +\S+ +20\d\d-\S+Z +tools$/m);
    expect(ls.stdout).toMatch(/^runner\.persona@2 +built-in +agency +2026-11-25T00:00:00\.000Z +-$/m);
    const versions = JSON.parse((await run(['ls', '--dir', dir, '--id', 'runner.plan', '--json'])).stdout) as Array<
      Record<string, unknown>
    >;
    expect(versions.map((each) => [each.version, each.source, each.createdBy])).toEqual([
      [1, 'built-in', 'agency'],
      [2, 'built-in', 'agency'],
      [3, 'store', 'alice'],
      [4, 'store', expect.any(String)],
    ]);
    expect(versions[3]?.createdBy).not.toBe('');
    expect(versions[3]).not.toHaveProperty('text');

    expect(await run(['show', 'runner.plan@3', '--dir', dir])).toMatchObject({ code: 0, stdout: PLAN_V3 });
    expect((await run(['show', 'runner.plan', '--dir', dir])).stdout).toBe(PLAN_V4);
    const record = JSON.parse((await run(['show', 'runner.plan', '--dir', dir, '--json'])).stdout);
    expect(record).toMatchObject({ id: 'runner.plan', version: 4, text: PLAN_V4, metadata: { note: 'terser' } });

    const diff = await run(['diff', 'runner.plan@3', 'runner.plan@4', '--dir', dir]);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toBe(
      [
        '--- runner.plan@3',
        '+++ runner.plan@4',
        '-Phase: PLAN. Answer with the plan as JSON.',
        '-Tools you may allow:',
        '+Phase: PLAN. Answer with the plan as JSON, nothing else.',
        '+Tools:',
        ' {{tools}}',
        '',
      ].join('\n'),
    );

    const audit = await run(['audit', '--dir', dir]);
    expect(audit.stdout).toMatch(/runner\.plan@3 {2}put by alice {2}after @2 {2}changed: text, metadata/);
    expect(audit.stdout).toMatch(/runner\.plan@4 {2}put by \S+ {2}after @3 {2}changed: text, metadata/);
    const entries = JSON.parse((await run(['audit', '--dir', dir, '--id', 'runner.plan', '--json'])).stdout);
    expect(entries.map((entry: { version: number }) => entry.version)).toEqual([3, 4]);
  }, 60_000);

  it('validates without storing: exit 1 and each problem with its line and column', async () => {
    const work = await tempDir();
    await writeFile(join(work, 'broken.md'), 'Phase: PLAN.\nTools: {{tools}\n{{#open}}never closed\n');
    const broken = await run(['validate', 'runner.plan', '--dir', work, '--file', join(work, 'broken.md')]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^invalid {2}runner\.plan:\n {2}text line 2, column 8: /);
    await writeFile(join(work, 'vars.md'), 'Tools: {{tools}}\n');
    const undeclared = await run(['validate', 'runner.plan', '--file', join(work, 'vars.md'), '--var', 'plan']);
    expect(undeclared.code).toBe(1);
    expect(undeclared.stderr).toContain('  requiredVars: "plan" is declared but the text does not use it\n');
    expect(undeclared.stderr).toContain('  requiredVars: the text uses "tools", which is not declared; add it\n');
    const ok = await run(['validate', 'runner.plan', '--dir', work, '--file', join(work, 'vars.md')]);
    expect(ok).toMatchObject({ code: 0, stdout: 'ok  runner.plan: uses tools\n' });
    expect(await readdir(work)).toEqual(['broken.md', 'vars.md']);
  }, 30_000);

  it('refuses a symbolic link planted in the folder, naming the file', async () => {
    const work = await tempDir();
    const dir = join(work, 'prompts');
    await mkdir(dir);
    await mkdir(join(work, 'elsewhere'));
    await symlink(join(work, 'elsewhere'), join(dir, 'runner.plan'));
    for (const args of [['ls'], ['show', 'runner.plan'], ['ls', '--id', 'runner.plan']]) {
      const refused = await run([...args, '--dir', dir]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`${join(dir, 'runner.plan')}:1: is a symbolic link`);
    }
  }, 30_000);

  it('uses the operator config’s prompts.dir when no store is named', async () => {
    const work = await tempDir();
    await mkdir(join(work, 'prompts'));
    await writeFile(join(work, 'config.json'), JSON.stringify({ prompts: { dir: 'prompts' } }));
    await writeFile(join(work, 'v3.md'), PLAN_V3);
    const put = await run(['put', 'runner.plan', '--config', join(work, 'config.json'), '--file', join(work, 'v3.md')]);
    expect(put).toMatchObject({ code: 0, stdout: 'runner.plan@3\n' });
    expect(await readdir(join(work, 'prompts', 'runner.plan'))).toEqual(['3.md']);
    await writeFile(join(work, 'bad.json'), JSON.stringify({ prompts: { dir: 'missing' } }));
    const bad = await run(['ls', '--config', join(work, 'bad.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${join(work, 'bad.json')}: prompts.dir: ${join(work, 'missing')} is not a folder`);
  }, 30_000);
});

describe('agency prompts on a SQLite store', () => {
  it('round-trips versions and the audit trail through sqlite:', async () => {
    const work = await tempDir();
    const store = `sqlite:${join(work, 'prompts.db')}`;
    await writeFile(join(work, 'v3.md'), PLAN_V3);
    await writeFile(join(work, 'v4.md'), PLAN_V4);
    expect((await run(['put', 'runner.plan', '--store', store, '--file', join(work, 'v3.md')])).stdout).toBe(
      'runner.plan@3\n',
    );
    expect((await run(['put', 'runner.plan', '--store', store, '--file', join(work, 'v4.md')])).stdout).toBe(
      'runner.plan@4\n',
    );
    expect((await run(['show', 'runner.plan@3', '--store', store])).stdout).toBe(PLAN_V3);
    const versions = JSON.parse((await run(['ls', '--id', 'runner.plan', '--store', store, '--json'])).stdout);
    expect(versions.map((each: { version: number }) => each.version)).toEqual([1, 2, 3, 4]);
    const audit = JSON.parse((await run(['audit', '--store', store, '--json'])).stdout);
    expect(audit.map((entry: { previous: { version: number } }) => entry.previous.version)).toEqual([2, 3]);
    expect((await run(['diff', 'runner.plan@3', 'runner.plan@4', '--store', store])).stdout).toContain('+Tools:\n');
  }, 30_000);
});

describe('agency prompts on a PostgreSQL store', () => {
  let server: TempPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(() => server?.stop());

  it('round-trips through postgres://, a password in the URL printed nowhere', async () => {
    // The cluster trusts loopback: the password is accepted and ignored, and must not show in any output.
    const store = server.url.replace('://agency@', '://agency:s3cret@');
    const work = await tempDir();
    await writeFile(join(work, 'v3.md'), PLAN_V3);
    await writeFile(join(work, 'broken.md'), 'Tools: {{tools}\n');
    const outputs = [
      await run(['put', 'runner.plan', '--store', store, '--file', join(work, 'v3.md'), '--by', 'ops']),
      await run(['show', 'runner.plan', '--store', store]),
      await run(['ls', '--store', store]),
      await run(['audit', '--store', store, '--id', 'runner.plan']),
      await run(['put', 'runner.plan', '--store', store, '--file', join(work, 'broken.md')]),
      await run(['show', 'runner.plan@9', '--store', store]),
    ];
    expect(outputs.map((output) => output.code)).toEqual([0, 0, 0, 0, 2, 2]);
    expect(outputs[0]?.stdout).toBe('runner.plan@3\n');
    expect(outputs[1]?.stdout).toBe(PLAN_V3);
    expect(outputs[2]?.stdout).toMatch(/^runner\.plan@3 +store +ops /m);
    expect(outputs[3]?.stdout).toMatch(/runner\.plan@3 {2}put by ops {2}after @2/);
    expect(outputs[4]?.stderr).toMatch(/cannot be put:\n- text line 1, column 8: /);
    expect(outputs[5]?.stderr).toContain('Prompt "runner.plan" has no version 9 (it has 1, 2, 3)');
    for (const output of outputs) expect(`${output.stdout}${output.stderr}`).not.toContain('s3cret');
  }, 60_000);
});

describe('agency prompts refuses', () => {
  const traversal = ['../etc', 'runner/plan', 'a..b', '/etc/passwd'];

  it('an id with .. or / in every command, before any file is touched', async () => {
    const work = await tempDir();
    const fifo = join(work, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const missing = join(work, 'no-such-folder');
    for (const id of traversal) {
      for (const args of [
        ['ls', '--id', id],
        ['audit', '--id', id],
        ['show', id],
        ['show', `${id}@1`],
        ['put', id, '--file', fifo],
        ['validate', id, '--file', fifo],
        ['diff', `${id}@1`, 'runner.plan@1'],
        ['diff', 'runner.plan@1', `${id}@2`],
      ]) {
        const refused = await run([...args, '--dir', missing]);
        expect(refused.code, `${args.join(' ')}`).toBe(2);
        expect(refused.stderr).toMatch(/is not a prompt id: use lowercase letters/);
        expect(refused.stderr).not.toContain('no-such-folder');
      }
    }
    expect(await readdir(work)).toEqual(['fifo']);
  }, 120_000);

  it('a FIFO or a 10 MB --file at once, saying why', async () => {
    const work = await tempDir();
    const fifo = join(work, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const big = join(work, 'big.md');
    await writeFile(big, '');
    await truncate(big, 10 * 1024 * 1024);
    for (const command of ['put', 'validate']) {
      const fromFifo = await run([command, 'runner.plan', '--dir', work, '--file', fifo]);
      expect(fromFifo.code).toBe(2);
      expect(fromFifo.stderr).toContain(`--file: ${fifo} is not a regular file (a folder, a FIFO or a device)`);
      const tooBig = await run([command, 'runner.plan', '--dir', work, '--file', big]);
      expect(tooBig.code).toBe(2);
      expect(tooBig.stderr).toContain(`--file: ${big} is 10485760 bytes, over the 262144-byte limit`);
    }
    const piped = await withInput(['prompts', 'validate', 'runner.plan', '--file', '-'], 'x'.repeat(300_000));
    expect(piped.code).toBe(2);
    expect(piped.stderr).toMatch(/--file: standard input is over \d+ bytes, over the 262144-byte limit/);
    expect(await readdir(work)).toEqual(['big.md', 'fifo']);
  }, 60_000);

  it('a put with no store, bad flags and bad refs with exit 2, naming the flag', async () => {
    const work = await tempDir();
    await writeFile(join(work, 'v.md'), PLAN_V3);
    const builtin = await run(['put', 'runner.plan', '--file', join(work, 'v.md')]);
    expect(builtin.code).toBe(2);
    expect(builtin.stderr).toMatch(
      /the built-in prompts take no new versions; give the store to put to: --dir <folder>.*--store sqlite:<path>/,
    );
    const both = await run(['ls', '--dir', work, '--store', `sqlite:${join(work, 'x.db')}`]);
    expect(both).toMatchObject({ code: 2 });
    expect(both.stderr).toContain('--dir and --store name two stores');
    const metadata = await run([
      'put',
      'runner.plan',
      '--dir',
      work,
      '--file',
      join(work, 'v.md'),
      '--metadata',
      '[1]',
    ]);
    expect(metadata.code).toBe(2);
    expect(metadata.stderr).toContain('--metadata: must be a JSON object');
    expect((await run(['put', 'runner.plan', '--dir', work])).stderr).toMatch(/required option '--file <path>'/);
    const noVersion = await run(['diff', 'runner.plan', 'runner.plan@2']);
    expect(noVersion.code).toBe(2);
    expect(noVersion.stderr).toContain('<from>: "runner.plan" names no version');
    const unknown = await run(['show', 'runner.plan@9']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Prompt "runner.plan" has no version 9 (it has 1, 2)');
    const notDir = await run(['ls', '--dir', join(work, 'v.md')]);
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toContain(`--dir: ${join(work, 'v.md')} is not a folder`);
    expect(await readdir(work)).toEqual(['v.md']);
  }, 60_000);

  it('never prints the password of a postgres URL', async () => {
    const down = await run(['ls', '--store', 'postgres://admin:s3cret@127.0.0.1:9/agency']);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('PostgreSQL prompt store at postgres://***@127.0.0.1:9/agency');
    expect(down.stderr).not.toContain('s3cret');
    const unknown = await run(['ls', '--store', 'mysql://admin:s3cret@127.0.0.1:9/agency']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--store: "mysql://***@127.0.0.1:9/agency" is not a prompt store');
    expect(unknown.stderr).not.toContain('s3cret');
  }, 30_000);
});

describe('the operator config’s prompts in agency run and agency serve', () => {
  let local: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
  beforeAll(async () => {
    local = await startOpenAICompatibleServer();
  });
  afterAll(() => local.server.close());

  async function usedPrompts(root: string): Promise<string[]> {
    const { frames } = await readJournal(join(root, 'progress', 'events.ndjson'));
    return frames.flatMap((frame) => (frame.type === 'usage.delta' ? ((frame.data?.prompts as string[]) ?? []) : []));
  }

  it('runs with the version prompts.pins names', async () => {
    const work = await tempDir();
    const config = join(work, 'config.json');
    await writeFile(config, JSON.stringify({ prompts: { pins: ['runner.plan@1'] } }));
    const root = await makeTaskFolder();
    const model = `openai-compatible:${local.url}#local-model`;
    const ran = await cli(['run', root, '--model', model, '--approvals', 'auto', '--config', config], env);
    expect(ran.code).toBe(0);
    const used = await usedPrompts(root);
    expect(used).toContain('runner.plan@1');
    expect(used).not.toContain('runner.plan@2');
  }, 60_000);

  it('stops run and serve before they start on a bad prompts key, naming the file and the field', async () => {
    const work = await tempDir();
    const config = join(work, 'config.json');
    await writeFile(config, JSON.stringify({ prompts: { dir: 'missing', pins: ['runner.plan@1'] } }));
    const model = `openai-compatible:${local.url}#local-model`;
    const root = await makeTaskFolder();
    const ran = await cli(['run', root, '--model', model, '--config', config], env);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(`${config}: prompts.dir: ${join(work, 'missing')} is not a folder`);
    const served = await cli(['serve', '--root', work, '--port', '0', '--model', model, '--config', config], env);
    expect(served.code).toBe(2);
    expect(served.stderr).toContain(`${config}: prompts.dir: ${join(work, 'missing')} is not a folder`);
    await writeFile(config, JSON.stringify({ prompts: { pins: ['runner.plan@1', 'runner.plan'] } }));
    const pinned = await cli(['run', root, '--model', model, '--config', config], env);
    expect(pinned.code).toBe(2);
    expect(pinned.stderr).toContain(`${config}: prompts.pins[1]: "runner.plan" is not a prompt version`);
  }, 60_000);
});
