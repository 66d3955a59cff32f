import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { makeTaskFolder } from '../support/governed-fixture.ts';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';
import { agency, cli, waitForRequest } from '../support/cli.ts';

let local: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
beforeAll(async () => {
  local = await startOpenAICompatibleServer();
});
afterAll(() => local.server.close());

const modelFlag = () => ['--model', `openai-compatible:${local.url}#local-model`];

describe('agency run against an OpenAI-compatible endpoint', () => {
  it('runs a governed task end to end through the real provider over HTTP', async () => {
    const root = await makeTaskFolder();
    const before = local.requests();
    const { code, stdout } = await cli(['run', root, ...modelFlag(), '--approvals', 'auto', '--json']);
    expect(code).toBe(0);
    const result = (
      JSON.parse(stdout.trim().split('\n').at(-1) as string) as { result: { finishReason: string; verified: boolean } }
    ).result;
    expect(result).toMatchObject({ finishReason: 'completed', verified: true });
    expect(local.requests() - before).toBe(6);
    expect(await readFile(join(root, 'progress', 'artifacts', 'summary.md'), 'utf8')).toBe(
      'Agency runs governed agents.\n',
    );
  });
});

describe('approvals by hand from another shell', () => {
  it.each([
    ['approve', 0, 'completed'],
    ['deny', 4, 'approval.denied'],
  ] as const)(
    'agency %s lets the waiting run go on, exit %i',
    async (verb, expectedCode, reason) => {
      const root = await makeTaskFolder();
      const run = spawn(process.execPath, [agency, 'run', root, ...modelFlag(), '--approvals', 'file'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      run.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => run.once('exit', resolve));
      const id = await waitForRequest(root);
      const status = await cli(['status', root]);
      expect(status.stdout).toContain(`Pending:   ${id} (plan) → agency approve ${root} ${id}`);
      const decided = await cli([verb, root, id, '--by', 'ana', '--reason', 'reviewed']);
      expect(decided).toMatchObject({
        code: 0,
        stdout: `${id}: ${verb === 'approve' ? 'approved' : 'denied'} by ana\n`,
      });
      expect(await exited).toBe(expectedCode);
      expect(output).toContain(`Approve: agency approve ${root} ${id}`);
      const { frames } = await readJournal(join(root, 'progress', 'events.ndjson'));
      expect(frames.at(-1)).toMatchObject({ type: 'finish', data: { reason } });
      expect(frames.find((frame) => frame.type === 'approval.decided')).toMatchObject({ data: { by: 'ana' } });
      // Changing one's mind after the run acted is refused.
      const again = await cli([verb === 'approve' ? 'deny' : 'approve', root, id]);
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/approval_invalid|already|differ/i);
    },
    60_000,
  );
});

describe('the other commands, and clear errors', () => {
  it('init, tail, status and stop', async () => {
    const root = join(await makeTaskFolder(), 'fresh');
    expect((await cli(['init', root, '--brief', '# Do a thing'])).code).toBe(0);
    expect(await readFile(join(root, 'task', 'brief.md'), 'utf8')).toBe('# Do a thing\n');
    expect((await cli(['init', root])).code).toBe(2);
    expect((await cli(['status', root])).stdout).toContain('not started');
    await writeFile(join(root, 'task', 'input.txt'), 'Agency runs governed agents.\n');
    expect((await cli(['run', root, ...modelFlag(), '--approvals', 'auto'])).code).toBe(0);
    const tail = await cli(['tail', root]);
    expect(tail.stdout).toMatch(/#\s+1 run\.started/);
    expect(tail.stdout).toMatch(/#\s+2 phase\.start/);
    expect(tail.stdout).toMatch(/finish\s+.*Finished: completed/);
    const json = await cli(['tail', root, '--json']);
    expect(JSON.parse(json.stdout.trim().split('\n')[0] as string)).toMatchObject({
      version: 'agent.events.v1',
      seq: 1,
    });
    expect(JSON.parse((await cli(['status', root, '--json'])).stdout)).toMatchObject({
      state: { status: 'completed' },
    });
    expect((await cli(['stop', root])).stdout).toContain('no run is active');
  }, 60_000);

  it.each([
    [['run', '/nonexistent/task', '--model', 'openai:gpt-4o'], 2, /does not exist/],
    [['run', '.', '--model', 'gpt-4o'], 2, /Model spec "gpt-4o" is invalid|no task\/ directory/],
    [['run', '--max-iterations', 'many', 'x'], 2, /positive whole number/],
    [['approve', '/nonexistent/task', 'req_x'], 2, /does not exist/],
  ])('%j exits %i with a clear message', async (args, code, message) => {
    const result = await cli(args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  it('names the variable to set when an API key is missing', async () => {
    const root = await makeTaskFolder();
    const result = await cli(['run', root, '--model', 'anthropic:claude-sonnet-4-5'], { ANTHROPIC_API_KEY: '' });
    expect(result).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('set the ANTHROPIC_API_KEY environment variable'),
    });
  });

  it('refuses a second run on a locked task, and explains a corrupt state file', async () => {
    const root = await makeTaskFolder();
    const run = spawn(process.execPath, [agency, 'run', root, ...modelFlag(), '--approvals', 'file'], {
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => run.once('exit', resolve));
    for (let i = 0; i < 100 && (await cli(['approvals', root, '--json'])).stdout.trim() === '[]'; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await cli(['resume', root, ...modelFlag()]);
    expect(second.code).toBe(5);
    expect(second.stderr).toMatch(/Another run \(pid \d+/);
    run.kill('SIGKILL');
    await exited;
    await writeFile(join(root, 'progress', 'state.json'), '{ broken');
    // status tells the run from the journal and names the fix; the fix works: resume rebuilds the state.
    const status = await cli(['status', root]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/interrupted, told from the journal: .*state\.json is unreadable/);
    expect(status.stdout).toContain(`Next:      agency resume ${root}`);
    const resumed = await cli(['resume', root, ...modelFlag(), '--approvals', 'auto']);
    expect(resumed.stdout).toContain('could not be read');
    expect(resumed.code).toBe(0);
  }, 60_000);
});
