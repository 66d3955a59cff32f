// The CLI's --server mode against a real `agency serve` process: a task folder sent and run there with the live view
// of a local run, approved, denied, stopped, resumed and followed from other commands, each with the exit code of
// a local run; and the server's refusals printed plainly, with their exit codes.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, symlink } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agency, cli } from '../support/cli.ts';
import { makeTaskFolder } from '../support/governed-fixture.ts';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';

const TOKEN = 'cli-server-token-0123456789abcdef';
const MISSING = 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV';
let model: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
let server: ServeProcess;
let data: string;
beforeAll(async () => {
  model = await startOpenAICompatibleServer();
  data = await mkdtemp(join(tmpdir(), 'agency-cli-server-'));
  const spec = `openai-compatible:${model.url}#local-model`;
  server = await startServeProcess(['--root', data, '--model', spec, '--allow-auto-approvals'], TOKEN);
});
afterAll(async () => {
  await server?.kill('SIGTERM');
  model?.server.close();
});

// `agency …args --server <url>`, with the token in the environment.
const remote = (args: string[], env: Record<string, string> = { AGENCY_TOKEN: TOKEN }) =>
  cli([...args, '--server', server.url], env);

async function pendingRequest(taskId?: string): Promise<{ task: string; request: string }> {
  for (;;) {
    const { stdout } = await remote(['approvals', ...(taskId ? [taskId] : []), '--json']);
    const items = JSON.parse(stdout) as Array<{ task_id: string; request: { id: string } }>;
    if (items[0]) return { task: items[0].task_id, request: items[0].request.id };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const taskIdIn = (stdout: string) => /Started (task_\w+)/.exec(stdout)?.[1] ?? '';

describe('agency run --server', () => {
  it('sends the task folder, shows the run live, is approved from another command, and exits 0', async () => {
    const folder = await makeTaskFolder();
    const run = remote(['run', folder]);
    const { task, request } = await pendingRequest();
    const approved = await remote(['approve', task, request, '--reason', 'plan looks right']);
    expect(approved).toMatchObject({ code: 0, stdout: `${request}: approved by operator\n` });
    const { code, stdout } = await run;
    expect(code).toBe(0);
    expect(taskIdIn(stdout)).toBe(task);
    expect(stdout).toContain(`from ${join(folder, 'task', 'brief.md')} and 1 file(s) of task/`);
    expect(stdout).toContain(
      `Approve: agency approve ${task} ${request} --server ${server.url}   Deny: agency deny ${task} ${request} --server ${server.url}`,
    );
    expect(stdout).toMatch(/Finished: completed \(verified\)/);
    expect(stdout).toContain('Delivered: progress/artifacts/summary.md');
    expect(await readFile(join(data, 'tasks', task, 'task', 'input.txt'), 'utf8')).toContain('governed agents');

    const status = await remote(['status', task]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^Status: +completed \(completed\)$/m);
    expect(status.stdout).toMatch(/^Plan: +[0-9a-f]{16}… v1 \(approved\)$/m);
    expect(status.stdout).toMatch(/^Next: +nothing: the run is final/m);

    // tail prints the journal as it is on the server's disk.
    const parse = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
    const journal = parse(await readFile(join(data, 'tasks', task, 'progress', 'events.ndjson'), 'utf8'));
    expect(parse((await remote(['tail', task, '--json'])).stdout)).toEqual(journal);
    const lines = (await remote(['tail', task])).stdout.trim().split('\n');
    expect(lines).toHaveLength(journal.length);
    expect(lines.at(-1)).toMatch(/#\s*\d+ finish/);

    // Resuming a finished task says so, with the exit code of how it finished.
    const resumed = await remote(['resume', task]);
    expect(resumed).toMatchObject({ code: 0 });
    expect(resumed.stdout).toContain('finished for good (completed)');
  }, 60_000);

  it('prints NDJSON frames and the result line with --json, as a local run does', async () => {
    const { code, stdout } = await remote(['run', await makeTaskFolder(), '--json', '--approvals', 'auto']);
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.slice(0, -1).every((line) => line.version === 'agent.events.v1')).toBe(true);
    const tokens = lines.reduce(
      (sum, line) => sum + ((line.usage_delta as { total_tokens?: number })?.total_tokens ?? 0),
      0,
    );
    expect(lines.at(-1)).toMatchObject({ result: { finishReason: 'completed', usage: { totalTokens: tokens } } });
  }, 60_000);

  it('exits 4 when the plan is denied, 3 when stopped; resume follows it again, and tail -f with it', async () => {
    const denied = remote(['run', await makeTaskFolder()]);
    const first = await pendingRequest();
    expect((await remote(['deny', first.task, first.request, '--reason', 'no'])).code).toBe(0);
    expect((await denied).code).toBe(4);

    const stopped = remote(['run', await makeTaskFolder()]);
    const second = await pendingRequest();
    const stop = await remote(['stop', second.task]);
    expect(stop).toMatchObject({ code: 0 });
    expect(stop.stdout).toContain(`${second.task}: Stopping (stopped)`);
    const stoppedRun = await stopped;
    expect(stoppedRun.code).toBe(3);
    expect(stoppedRun.stdout).toContain('Finished: stopped');
    expect((await remote(['status', second.task])).stdout).toContain(`agency resume ${second.task} --server`);

    const resumed = remote(['resume', second.task, '--max-iterations', '50']);
    const again = await pendingRequest(second.task);
    const tail = remote(['tail', second.task, '-f']);
    await remote(['approve', second.task, again.request]);
    const [resumedRun, tailed] = await Promise.all([resumed, tail]);
    expect(resumedRun.code).toBe(0);
    expect(resumedRun.stdout).not.toContain('run.started');
    expect(resumedRun.stdout).toContain('run.resumed');
    expect(tailed.code).toBe(0);
    expect(tailed.stdout.trim().split('\n').at(-1)).toMatch(/ finish +Finished: completed$/);
  }, 90_000);

  it('stops the run on the server at Ctrl-C and exits 3, as a local run does', async () => {
    const child = spawn(process.execPath, [agency, 'run', await makeTaskFolder(), '--server', server.url], {
      env: { ...process.env, AGENCY_TOKEN: TOKEN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('waiting for a decision') && !stdout.includes('Stopping')) child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(3);
    expect(stdout).toContain(`\`agency resume ${taskIdIn(stdout)} --server ${server.url}\` continues the run`);
    expect(stdout).toContain('Finished: cancelled');
  }, 60_000);
});

describe('refusals with --server', () => {
  it('prints what the server refused, with the exit code of its kind', async () => {
    const wrongToken = await remote(['status', MISSING], { AGENCY_TOKEN: 'not-the-token-at-all' });
    expect(wrongToken).toMatchObject({ code: 2, stdout: '' });
    expect(wrongToken.stderr).toBe('agency: The bearer token is not valid (HTTP 401 unauthorized)\n');

    const missing = await remote(['status', MISSING]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `agency: Task ${MISSING} not found (GET /agent/tasks lists the tasks) (HTTP 404 not_found)\n`,
    );

    const { stdout } = await remote(['run', await makeTaskFolder(), '--approvals', 'auto']);
    const finished = taskIdIn(stdout);
    const conflict = await remote(['stop', finished]);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toBe(`agency: Task ${finished} is not running (completed) (HTTP 409 conflict)\n`);
    const upload = await remote(['approve', finished, 'req_01ARZ3NDEKTSV4RRFFQ69G5FAV']);
    expect(upload.code).toBe(2);
    expect(upload.stderr).toContain('(HTTP 404 not_found)');
  }, 60_000);

  it('refuses what cannot be sent before asking the server, with exit code 2', async () => {
    const folder = await makeTaskFolder();
    await symlink('/etc/hostname', join(folder, 'task', 'notes.txt'));
    const cases: Array<[string[], Record<string, string>, string]> = [
      [['status', './my-task'], { AGENCY_TOKEN: TOKEN }, 'is not a task id: with --server, <root> is the id'],
      [['status', MISSING], { AGENCY_TOKEN: '' }, 'No token for'],
      [['run', folder], { AGENCY_TOKEN: TOKEN }, 'notes.txt: a link; the server takes regular files only'],
      [
        ['run', folder, '--policy', 'strict'],
        { AGENCY_TOKEN: TOKEN },
        "--policy: with --server, the server's operator",
      ],
      [['approve', MISSING, 'req_x', '--by', 'ana'], { AGENCY_TOKEN: TOKEN }, '--by: with --server, the server signs'],
    ];
    for (const [args, env, message] of cases) {
      const result = await remote(args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
    }
    expect((await cli(['status', MISSING, '--token', TOKEN])).stderr).toContain('--token is for --server');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const down = await cli(['status', MISSING, '--server', `http://127.0.0.1:${port}`], { AGENCY_TOKEN: TOKEN });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/no answer from the server: .*ECONNREFUSED/);
  }, 60_000);
});
