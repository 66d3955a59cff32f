// The fleet commands as a user runs them: `agency fleet`, `agency shutdown` and `agency kill` in child processes,
// against fake workers in processes of their own on free ports of one block.
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agency } from '../support/cli.ts';
import { useFleetFixture } from '../support/fleet-fixture.ts';

const fleet = useFleetFixture();
const { worker } = fleet;

describe('agency fleet, shutdown and kill', () => {
  it('lists the components with health, and what answered without being one', async () => {
    const a = await worker(1, '--name', 'a');
    await worker(2, '--name', 'web', '--type', 'view');
    const bad = await worker(3, '--fault', '/status=wrong-shape');
    const created = await fetch(`${a.url}/task`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'sleep 3000 a long prompt' }),
    });
    const { task_id: taskId } = (await created.json()) as { task_id: string };
    const down = `http://127.0.0.1:${fleet.state.block.to}`;
    const listed = await fleet.agency('fleet', '--url', down);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME +TYPE +URL +STATE +HEALTH +UPTIME +TASK$/);
    expect(lines[1]).toMatch(
      new RegExp(`^a +agent +${a.url} +working +green +\\d+\\.\\d s +${taskId} "sleep 3000 a long prompt"$`),
    );
    expect(lines[2]).toMatch(/^web +view +http:\/\/127\.0\.0\.1:\d+ +idle +green +\d+\.\d s +—$/);
    expect(lines[3]).toMatch(new RegExp(`^\\? +\\? +${down} +unknown +yellow +— +—$`));
    expect(listed.stdout).toContain(`${down}: worker ${down}: GET /status: no answer:`);
    expect(listed.stdout).toContain(
      `Answered, but not as a component:\n  ${bad.url}: GET /status: the answer is not the worker API`,
    );
    const json = JSON.parse((await fleet.agency('fleet', '--json')).stdout) as Array<Record<string, unknown>>;
    expect(json.map((component) => [component.name, component.type, component.state, component.health])).toEqual([
      ['a', 'agent', 'working', 'green'],
      ['web', 'view', 'idle', 'green'],
    ]);
  });

  it('fleet --watch sees a worker started later, and its state change, and ends on Ctrl-C', async () => {
    const child = spawn(process.execPath, [agency, 'fleet', '--watch', '--json'], {
      env: { ...process.env, ...fleet.state.env },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const snapshots = () =>
      stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Array<{ name: string; state: string; health: string }>);
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    await new Promise((resolve) => setTimeout(resolve, 500));
    const late = await worker(4, '--name', 'late');
    await until(() => snapshots().some((list) => list[0]?.name === 'late'));
    await fetch(`${late.url}/task`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'sleep 6000' }),
    });
    // Seen at its next idle poll (within 5 s), then polled every second while it works.
    await until(() => snapshots().some((list) => list[0]?.state === 'working'));
    await until(() => snapshots().at(-1)?.[0]?.state === 'idle');
    child.kill('SIGINT');
    expect(await code).toBe(0);
    expect(snapshots()[0]).toEqual([]);
  }, 30_000);

  it('shutdown refuses a worker with a running task unless --force, and each shut-down worker exits', async () => {
    const a = await worker(1, '--name', 'a');
    const b = await worker(2, '--name', 'b');
    const web = await worker(3, '--name', 'web', '--type', 'view');
    const running = fleet.agency('task', 'sleep 20000', '--agent', 'a');
    await fleet.until(a.url, 'working');
    const refused = await fleet.agency('shutdown', '--agents');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /✗ a \(http:\S+\): POST \/shutdown: Task task-\w+ is running\. Use force=true to terminate\. \(--force cancels it\)\n/,
    );
    expect(refused.stdout).toMatch(/✓ b \(http:\S+\): Shutdown initiated \(drain 30 s\)\n/);
    expect(await b.exited).toBe(0);
    const forced = await fleet.agency('shutdown', '--port', String(a.port), '--force');
    expect([forced.code, forced.stdout]).toEqual([0, expect.stringMatching(/^✓ a .*Shutdown initiated/)]);
    expect(await a.exited).toBe(0);
    // The task was cancelled and the worker went away: its follower saw the task cancelled (3), or, when the worker
    // was gone before its next poll, says it lost the worker once it has missed 10 polls (7).
    const follower = await running;
    if (follower.code === 3) expect(follower.stderr).toMatch(/■ cancelled after/);
    else
      expect([follower.code, follower.stderr]).toEqual([
        7,
        expect.stringContaining('agency: Lost the worker while following task-'),
      ]);
    expect(web.child.exitCode).toBeNull();
    const none = await fleet.agency('shutdown', '--agents');
    expect([none.code, none.stderr]).toEqual([
      7,
      expect.stringContaining('No component matches --agents; found 1: web ('),
    ]);
  }, 30_000);

  it('kill --all ends each process: by the pid in /status, or by its pid file', async () => {
    const shown = await worker(1, '--name', 'a');
    await mkdir(join(fleet.state.root, 'agents', 'hidden'), { recursive: true });
    const hidden = await worker(
      2,
      '--name',
      'hidden',
      '--hide-pid',
      '--pid-file',
      join(fleet.state.root, 'agents', 'hidden', 'agent.pid'),
    );
    const killed = await fleet.agency('kill', '--all');
    expect(killed.code).toBe(0);
    expect(killed.stdout).toContain(`terminated a (${shown.url}): pid ${shown.child.pid} (/status) ended on SIGTERM`);
    expect(killed.stdout).toContain(
      `terminated hidden (${hidden.url}): pid ${hidden.child.pid} (${join(fleet.state.root, 'agents', 'hidden', 'agent.pid')})`,
    );
    expect(await shown.exited).toBe(0);
    expect(await hidden.exited).toBe(0);
  });

  it('kill --all sends SIGKILL to a process still running 5 s after SIGTERM', async () => {
    const stubborn = await worker(1, '--name', 'stubborn', '--ignore-sigterm');
    const started = Date.now();
    const killed = await fleet.agency('kill', '--all');
    expect(killed.code).toBe(0);
    expect(killed.stdout).toContain(
      `killed     stubborn (${stubborn.url}): pid ${stubborn.child.pid} (/status) killed with SIGKILL after 5 s`,
    );
    expect(await stubborn.exited).toBe('SIGKILL');
    expect(Date.now() - started).toBeGreaterThanOrEqual(5000);
  }, 20_000);
});
