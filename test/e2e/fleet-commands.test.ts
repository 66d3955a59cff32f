// The fleet commands as a user runs them: `agency fleet`, `agency shutdown` and `agency kill` in child processes,
// against real `agency worker` processes (their executor scripted through the worker's test hook) on free ports of
// one block, beside fake components for what is not a worker (a view) or answers badly.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { agency } from '../support/cli.ts';
import { useFleetFixture } from '../support/fleet-fixture.ts';

const fleet = useFleetFixture();
const { worker, fake } = fleet;

describe('agency fleet, shutdown and kill', () => {
  it('lists the components with health, and what answered without being one', async () => {
    const [a] = await Promise.all([
      worker(1, 'a'),
      fake(2, '--name', 'web', '--type', 'view'),
      fake(3, '--fault', '/status=wrong-shape'),
    ]);
    const bad = { url: `http://127.0.0.1:${fleet.state.block.from + 3}` };
    const created = await fetch(`${a.url}/task`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'sleep 20000 a long prompt' }),
    });
    const { task_id: taskId } = (await created.json()) as { task_id: string };
    const down = `http://127.0.0.1:${fleet.state.block.to}`;
    const listed = await fleet.agency('fleet', '--url', down);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME +TYPE +URL +STATE +HEALTH +UPTIME +TASK$/);
    expect(lines[1]).toMatch(
      new RegExp(`^a +agent +${a.url} +working +green +\\d+\\.\\d s +${taskId} "sleep 20000 a long prompt"$`),
    );
    expect(lines[2]).toMatch(/^web +view +http:\/\/127\.0\.0\.1:\d+ +idle +green +\d+\.\d s +—$/);
    expect(lines[3]).toMatch(new RegExp(`^\\? +\\? +${down} +unknown +yellow +— +—$`));
    expect(listed.stdout).toContain(`${down}: worker ${down}: GET /status: no answer from the worker:`);
    expect(listed.stdout).toContain(
      `Answered, but not as a component:\n  ${bad.url}: GET /status: the worker's answer does not match the API`,
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
    const late = await worker(4, 'late');
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
    const [a, b, web] = await Promise.all([worker(1, 'a'), worker(2, 'b'), fake(3, '--name', 'web', '--type', 'view')]);
    const running = fleet.agency('task', 'sleep 20000', '--agent', 'a');
    await fleet.until(a.url, 'working');
    const refused = await fleet.agency('shutdown', '--agents');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /✗ a \(http:\S+\): POST \/shutdown: Task task-\w+ is running\. Use force=true to terminate\. \(--force cancels it after the drain time; --timeout 0 at once\)\n/,
    );
    expect(refused.stdout).toMatch(/✓ b \(http:\S+\): Shutdown initiated \(drain 30 s\)\n/);
    expect(await b.exited).toBe(0);
    // --force with no drain time: the running task is cancelled at once.
    const forced = await fleet.agency('shutdown', '--port', String(a.port), '--force', '--timeout', '0');
    expect([forced.code, forced.stdout]).toEqual([0, expect.stringMatching(/^✓ a .*Shutdown initiated/)]);
    expect(await a.exited).toBe(0);
    // The worker kept its port open a moment after cancelling the task, so its follower saw how the task ended.
    const follower = await running;
    expect([follower.code, follower.stderr]).toEqual([3, expect.stringMatching(/■ cancelled after/)]);
    expect(web.child.exitCode).toBeNull();
    const none = await fleet.agency('shutdown', '--agents');
    expect([none.code, none.stderr]).toEqual([
      7,
      expect.stringContaining('No component matches --agents; found 1: web ('),
    ]);
  }, 30_000);

  it('kill --all ends each worker by the pid its /status reports, and leaves nothing running', async () => {
    const [a, b] = await Promise.all([worker(1, 'a'), worker(2, 'b')]);
    const killed = await fleet.agency('kill', '--all');
    expect(killed.code).toBe(0);
    for (const one of [a, b]) {
      expect(killed.stdout).toContain(`terminated ${one.name} (${one.url}): pid ${one.child.pid} ended on SIGTERM`);
      expect(await one.exited).toBe(0);
    }
    const none = await fleet.agency('kill', '--all');
    expect([none.code, none.stderr]).toEqual([7, expect.stringContaining('No component')]);
  });

  it('kill --all sends SIGKILL to a worker still running 5 s after SIGTERM', async () => {
    // Its task ignores being stopped, so the worker's drain outlasts kill's grace period.
    const stuck = await worker(1, 'stuck');
    await fetch(`${stuck.url}/task`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'stubborn' }),
    });
    await fleet.until(stuck.url, 'working');
    const started = Date.now();
    const killed = await fleet.agency('kill', '--all');
    expect(killed.code).toBe(0);
    expect(killed.stdout).toContain(
      `killed     stuck (${stuck.url}): pid ${stuck.child.pid} killed with SIGKILL after 5 s`,
    );
    await stuck.exited;
    expect(stuck.child.signalCode).toBe('SIGKILL');
    expect(Date.now() - started).toBeGreaterThanOrEqual(5000);
  }, 30_000);
});
