// The CLI director as a user runs it: `agency task` in child processes, against real `agency worker` processes
// (their executor scripted through the worker's test hook) on free ports of one block: routing, sessions, exit codes,
// Ctrl-C; and against fake components for the bad answers a real worker never gives.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agency } from '../support/cli.ts';
import { useFleetFixture } from '../support/fleet-fixture.ts';
import { until } from '../support/worker-kit.ts';

const fleet = useFleetFixture();
const { worker, fake } = fleet;
const task = (...args: string[]) => fleet.agency('task', ...args);

describe('agency task', () => {
  it('routes to an idle worker, a second concurrent task to the other, and a third gets agent_busy (exit 6)', async () => {
    await Promise.all([worker(1, 'a'), worker(2, 'b')]);
    const runs = await Promise.all([task('sleep 6000 one'), task('sleep 6000 two'), task('sleep 6000 three')]);
    const placed = runs.filter((run) => run.code === 0);
    expect(placed).toHaveLength(2);
    const names = placed.map((run) => /started on (\w+) \(/.exec(run.stderr)?.[1]).sort();
    expect(names).toEqual(['a', 'b']);
    for (const run of placed) expect(run.stdout).toBe('slept 6000\n');
    // Refused by both workers (it raced the others for them), or seeing both working before it asked.
    const busy = runs.find((run) => run.code !== 0)!;
    expect(busy.code).toBe(6);
    expect(busy.stdout).toBe('');
    expect(busy.stderr).toMatch(
      /^agency: Every worker is busy \([ab] \(\S+\): (busy|working) \(task-\w+\); [ab] \(\S+\): (busy|working) \(task-\w+\)\)\. --wait SECONDS waits for one to be free\.\n$/,
    );
  });

  it('with --wait, a third task waits for a worker to be free, then runs', async () => {
    const a = await worker(1, 'a');
    const first = task('sleep 1500 first');
    await fleet.until(a.url, 'working');
    const [done, waiting] = await Promise.all([first, task('second', '--wait', '20')]);
    expect(done.code).toBe(0);
    expect(waiting.code).toBe(0);
    expect(waiting.stderr).toMatch(/Every worker is busy \(a \(http:\S+\): working \(task-\w+\)\); asking again in/);
    expect(waiting.stdout).toBe('done: second\n');
  });

  it('continues the last session twice on its worker, ends it, and remembers it under AGENCY_ROOT', async () => {
    await Promise.all([worker(1, 'a'), worker(2, 'b')]);
    const first = await task('hello');
    expect([first.code, first.stdout]).toEqual([0, 'done: hello\n']);
    const [, taskId, name, sessionId] =
      /(task-\w+) started on (\w+) .*, session ([0-9a-f-]{36})/.exec(first.stderr) ?? [];
    expect(first.stderr).toContain(`session ${sessionId} is open: agency task --continue "…" or agency task --end`);
    for (const prompt of ['again', 'once more']) {
      const next = await task('--continue', prompt);
      expect([next.code, next.stdout]).toEqual([0, `done: ${prompt}\n`]);
      expect(next.stderr).toContain(`${taskId} continued on ${name} `);
    }
    const ended = await task('--end');
    expect([ended.code, ended.stderr]).toEqual([
      0,
      expect.stringMatching(new RegExp(`✓ session ended \\(${taskId} on .*, completed\\)`)),
    ]);
    const json = await task('--end', '--session', sessionId!, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ task_id: taskId, state: 'completed', ended: false });
    const remembered = JSON.parse(await readFile(join(fleet.state.root, 'directors', 'cli', 'sessions.json'), 'utf8'));
    expect(remembered.sessions[0]).toMatchObject({ session_id: sessionId, task_id: taskId, name });
  });

  it('exits 1 for a failed task, 3 for a timed-out one, 2 for bad usage, with the reason on stderr', async () => {
    await worker(1, 'a');
    for (const [args, message] of [
      [[], 'a prompt is needed'],
      [['--end', 'prompt'], '--end takes no prompt'],
      [['--continue', 'x', '--agent', 'a'], '--agent cannot be combined with --continue'],
      [['--continue', 'x'], 'No session to carry on'],
      [['x', '--ports', '9000-80'], '--ports: "9000-80" is not a port range'],
      [['x', '--wait', 'soon'], "option '--wait [seconds]' argument 'soon' is invalid"],
    ] as const) {
      const run = await task(...args);
      expect([run.code, run.stderr]).toEqual([2, expect.stringContaining(message)]);
    }
    const failed = await task('fail executor_error');
    expect([failed.code, failed.stdout]).toEqual([1, '']);
    expect(failed.stderr).toMatch(/✗ failed after \d+\.\d s \(executor_error\): scripted failure: executor_error/);
    const timedOut = await task('sleep 20000', '--timeout', '1', '--json');
    expect(timedOut.code).toBe(3);
    expect(JSON.parse(timedOut.stdout).task).toMatchObject({ state: 'failed', error: { type: 'timeout' } });
  });

  it('Ctrl-C cancels the task on the worker and exits 3', async () => {
    const a = await worker(1, 'a');
    const child = spawn(process.execPath, [agency, 'task', 'sleep 20000'], {
      env: { ...process.env, ...fleet.state.env },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve) => {
      const look = () => (/working/.test(stderr) ? resolve() : setTimeout(look, 20));
      look();
    });
    child.kill('SIGINT');
    expect(await code).toBe(3);
    expect(stderr).toContain('Cancelling the task on the worker');
    expect(stderr).toMatch(/■ cancelled after/);
    const status = (await (await fetch(`${a.url}/status`)).json()) as { state: string };
    expect(status.state).toBe('idle');
    // The worker is idle once the task settled; its history record is saved just after.
    const last = await until(async () => {
      const { items } = (await (await fetch(`${a.url}/history`)).json()) as { items: Array<{ state: string }> };
      return items[0]?.state === 'cancelling' ? undefined : items[0];
    });
    expect(last.state).toBe('cancelled');
  });

  it('waits out a worker that is starting with --wait, and says so without', async () => {
    await worker(1, 'slow', { env: { SCRIPTED_EXECUTOR_CHECK_MS: '4000' }, waitReady: false });
    const now = await task('hi');
    expect([now.code, now.stderr]).toEqual([6, expect.stringContaining('slow (http://127.0.0.1:')]);
    expect(now.stderr).toContain('): starting)');
    const later = await task('hi', '--wait', '20');
    expect([later.code, later.stdout]).toEqual([0, 'done: hi\n']);
  });
});

describe('agency task against workers that answer badly', () => {
  it('names the worker and what was wrong, and exits 7', async () => {
    const malformed = await fake(1, '--name', 'm', '--fault', '/status=malformed');
    const run = await task('hi', '--agent', malformed.url);
    expect(run.code).toBe(7);
    expect(run.stderr).toBe(
      `agency: No worker to take the task: none answered as one (${malformed.url}: worker ${malformed.url}: GET /status: ` +
        'the worker\'s answer does not match the API: malformed JSON: {"state": "idle",).\n',
    );
    const broken = await fake(2, '--name', 'e', '--fault', '/task=error500');
    const failing = await task('hi', '--agent', 'e');
    expect([failing.code, failing.stderr]).toEqual([
      7,
      `agency: worker ${broken.url}: POST /task: HTTP 500: <h1>oops</h1>\n`,
    ]);
    const shapeless = await fake(3, '--name', 's', '--fault', '/task/:id=wrong-shape');
    const wrong = await task('hi', '--agent', 's');
    expect(wrong.code).toBe(7);
    expect(wrong.stderr).toContain(`agency: worker ${shapeless.url}: GET /task/`);
    expect(wrong.stderr).toContain("the worker's answer does not match the API: task_id: ");
  });

  it('gives up on a worker that does not answer a task in time', async () => {
    const hung = await fake(1, '--name', 'h', '--fault', '/task=hang');
    const run = await task('hi', '--agent', 'h');
    expect([run.code, run.stderr]).toEqual([7, `agency: worker ${hung.url}: POST /task: no answer within 5 s\n`]);
  }, 20_000);
});
