// Isolation, network reach and policy come from the operator (flags, their config file), never from task/: a task's
// agency.json may only narrow them, and `agency run` holds every task to a documented default policy.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { type RunCommandOptions, runCommand } from '../../src/cli/commands/run.ts';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

const UNLISTED = 'http://127.0.0.1:9/status';

const toolTurns = (options: LanguageModelV4CallOptions) =>
  options.prompt.filter((message) => message.role === 'tool').length;

// Plans a fetch and a write with the built-in tools, and does them.
function fetchingModel(url: string) {
  return phaseModel({
    gather: () => 'The input says agency runs governed agents (task/input.txt).',
    plan: () =>
      JSON.stringify({
        goal: 'Fetch the status and write a summary',
        steps: [{ id: 's1', title: 'Fetch, then write', tools: ['http_fetch', 'fs_write'] }],
        allowed_tools: ['http_fetch', 'fs_write'],
        acceptance: [{ id: 'a1', criterion: 'summary exists', check: { type: 'file_exists', path: 'artifacts/s.md' } }],
      }),
    act: (options) => {
      const turn = toolTurns(options);
      if (turn === 0) return { toolCalls: [{ id: 'f1', name: 'http_fetch', input: { url } }] };
      if (turn === 1)
        return {
          toolCalls: [{ id: 'w1', name: 'fs_write', input: { path: 'progress/artifacts/s.md', content: 'ok\n' } }],
        };
      return 'Done.';
    },
  });
}

async function operatorConfig(config: unknown): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'agency-operator-')), 'config.json');
  await writeFile(file, typeof config === 'string' ? config : JSON.stringify(config));
  return file;
}

async function run(root: string, options: Partial<RunCommandOptions>, url = UNLISTED): Promise<number> {
  const out = { write: () => {}, isTTY: false };
  return runCommand(
    root,
    {
      model: 'scripted',
      modelObject: fetchingModel(url),
      approvals: 'auto',
      config: await operatorConfig({}),
      ...options,
    },
    'start',
    out,
  );
}

async function taskWith(agencyJson: unknown): Promise<string> {
  const root = await makeTaskFolder();
  await writeFile(join(root, 'task', 'agency.json'), JSON.stringify(agencyJson));
  return root;
}

async function frames(root: string): Promise<EventFrame[]> {
  return (await readJournal(join(root, 'progress', 'events.ndjson'))).frames;
}

async function toolRequests(root: string): Promise<Array<{ tool_name: string; rationale: string }>> {
  const dir = join(root, 'progress', 'approvals', 'requests');
  const all = await Promise.all(
    (await readdir(dir)).map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8')) as never),
  );
  return all.filter((request: { type: string }) => request.type === 'tool');
}

describe('task/agency.json may only narrow what the operator allows', () => {
  it('refuses "sandbox": "none", naming the field and where the operator sets it', async () => {
    const root = await taskWith({ sandbox: 'none' });
    await expect(run(root, {})).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringMatching(/agency\.json: "sandbox": "none" .*--sandbox none or "sandbox" in .*config\.json/),
    });
    await expect(readdir(join(root, 'progress'))).rejects.toThrow();
  });

  it('refuses a host the operator does not allow, and accepts one inside what they allow', async () => {
    const refused = await taskWith({ network: { allow: ['127.0.0.1:9'] } });
    await expect(run(refused, {})).rejects.toMatchObject({
      message: expect.stringMatching(
        /"network\.allow\.0": "127\.0\.0\.1:9" is not among the hosts the operator allows \(none\).*--allow-host/,
      ),
    });
    const narrowed = await taskWith({ network: { allow: ['127.0.0.1:9'] } });
    expect(await run(narrowed, { allowHost: ['127.0.0.0/8'] })).toBe(0);
    expect(await toolRequests(narrowed)).toEqual([]);
  });

  it('refuses "offline": false when the operator runs offline', async () => {
    const root = await taskWith({ offline: false });
    const config = await operatorConfig({ offline: true });
    await expect(run(root, { config })).rejects.toMatchObject({
      message: expect.stringContaining(`"offline": false would turn on the network the operator turned off`),
    });
  });

  it('adds the require_tools of the task to the approvals, which is narrowing', async () => {
    const root = await taskWith({ require_tools: ['fs_write'] });
    expect(await run(root, { allowHost: ['127.0.0.1:9'] })).toBe(0);
    expect((await toolRequests(root)).map((request) => request.tool_name)).toEqual(['fs_write']);
  });
});

describe("the operator's config and the CLI's default policy", () => {
  it('sends a fetch of a host off the allowlist for approval by default', async () => {
    const root = await makeTaskFolder();
    expect(await run(root, {})).toBe(0);
    expect(await toolRequests(root)).toEqual([
      expect.objectContaining({ tool_name: 'http_fetch', rationale: expect.stringContaining('approval:network') }),
    ]);
  });

  it('lets the network tools reach an allowed host without approval', async () => {
    const root = await makeTaskFolder();
    const config = await operatorConfig({ network: { allow: ['127.0.0.1:9'] } });
    expect(await run(root, { config })).toBe(0);
    expect(await toolRequests(root)).toEqual([]);
  });

  it('journals a warning for --policy permissive and --sandbox none, and asks no tool approval', async () => {
    const root = await makeTaskFolder();
    expect(await run(root, { policy: 'permissive', sandbox: 'none' })).toBe(0);
    const warnings = (await frames(root)).filter((frame) => frame.type === 'warning').map((frame) => frame.message);
    expect(warnings).toEqual([
      expect.stringContaining('--policy permissive'),
      expect.stringContaining('switched the sandbox off'),
    ]);
    expect(await toolRequests(root)).toEqual([]);
  });

  it("names the operator's config file and each bad field", async () => {
    const config = await operatorConfig({ sandbox: 'off', network: { allow: ['http://x.example'] } });
    await expect(run(await makeTaskFolder(), { config })).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringMatching(/config\.json: "sandbox" Invalid option/),
    });
    const hosts = await operatorConfig({ network: { allow: ['http://x.example'] } });
    await expect(run(await makeTaskFolder(), { config: hosts })).rejects.toMatchObject({
      message: expect.stringMatching(/config\.json: "network\.allow\.0": write the host, not a URL/),
    });
    await expect(run(await makeTaskFolder(), { config: '/nonexistent/agency.json' })).rejects.toMatchObject({
      message: expect.stringContaining('/nonexistent/agency.json: the operator config file cannot be read'),
    });
  });
});

describe('the flags, through the real command line', () => {
  const agency = join(import.meta.dirname, '../../bin/agency.js');
  const cli = (args: string[]) =>
    promisify(execFile)(process.execPath, [agency, ...args], { env: { ...process.env, AGENCY_CONFIG: '' } }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );

  it('collects repeated --allow-host values and checks --policy against its choices', async () => {
    const root = await taskWith({ network: { allow: ['a.example.com', 'b.example.com'] } });
    const narrow = await cli(['run', root, '--model', 'gpt-4o', '--allow-host', 'a.example.com']);
    expect(narrow).toMatchObject({ code: 2, stderr: expect.stringContaining('"network.allow.1": "b.example.com"') });
    const both = ['--allow-host', 'a.example.com', '--allow-host', 'b.example.com'];
    // Past the operator's checks, the run stops at the next one: the model spec.
    expect(await cli(['run', root, '--model', 'gpt-4o', ...both])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Model spec "gpt-4o" is invalid'),
    });
    expect(await cli(['run', root, '--policy', 'none'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Allowed choices are default, strict, permissive'),
    });
  }, 30_000);
});
