import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/task/journal/read-journal.ts';

const child = join(import.meta.dirname, 'fixtures/workflow-child.ts');
const STEPS = ['fetch', 'left', 'right', 'join', 'publish'];
let dir: string;
let root: string;
let effects: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'agency-wf-kill-'));
  root = join(dir, 'task');
  effects = join(dir, 'effects.txt');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function start(mode: 'run' | 'resume', hold?: string): { process: ChildProcess; done: Promise<string> } {
  const proc = spawn(process.execPath, [child, root, effects, mode], {
    env: { ...process.env, AGENCY_ROOT: dir, WF_HOLD: hold ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const done = new Promise<string>((resolve, reject) =>
    proc.on('exit', (code, signal) =>
      code === 0 ? resolve(out) : reject(new Error(`child exited ${code ?? signal}: ${err}`)),
    ),
  );
  return { process: proc, done };
}

// Waits for the held step's marker, then kills the child with SIGKILL: no handler runs, nothing is flushed.
async function killWhenHeld(hold: string): Promise<void> {
  const { process: proc, done } = start(existsSync(join(root, 'progress', 'events.ndjson')) ? 'resume' : 'run', hold);
  const marker = `${effects}.held`;
  const deadline = Date.now() + 60_000;
  while (!existsSync(marker)) {
    if (proc.exitCode !== null) throw new Error(`child ended before holding at ${hold}: ${await done.catch(String)}`);
    if (Date.now() > deadline) throw new Error(`child never held at ${hold}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  rmSync(marker);
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  proc.kill('SIGKILL');
  await exited;
  await done.catch(() => undefined);
}

function counts(): Record<string, number> {
  const tally: Record<string, number> = {};
  for (const line of readFileSync(effects, 'utf8').split('\n').filter(Boolean)) tally[line] = (tally[line] ?? 0) + 1;
  return tally;
}

async function finishedJournal() {
  const { frames, torn } = await readJournal(join(root, 'progress', 'events.ndjson'));
  expect(torn).toBeUndefined();
  expect(frames.map((frame) => frame.seq)).toEqual(frames.map((_, index) => index + 1));
  const finished = frames.filter((frame) => frame.type === 'phase.finish').map((frame) => frame.step);
  expect([...finished].sort()).toEqual([...STEPS].sort());
  expect(frames.at(-1)?.data).toMatchObject({
    reason: 'completed',
    output: 'publish(join(left(fetch()),right(fetch())))',
  });
  return frames;
}

describe('a workflow killed with SIGKILL', () => {
  it('killed between steps, resumes in a new process and runs each finished step once', async () => {
    await killWhenHeld('join:before');
    expect(counts()).toEqual({ fetch: 1, left: 1, right: 1 });
    const result = JSON.parse(await start('resume').done) as { finishReason: string; steps: string[] };
    expect(result.finishReason).toBe('stop');
    expect(result.steps).toEqual(['join', 'publish']);
    expect(counts()).toEqual({ fetch: 1, left: 1, right: 1, join: 1, publish: 1 });
    const frames = await finishedJournal();
    expect(frames.filter((frame) => frame.type === 'run.resumed')).toHaveLength(1);
  });

  it('killed mid-step, re-runs only the step in flight (at least once), then killed again and resumed', async () => {
    await killWhenHeld('left:after');
    const finishedAtKill = await finishedSteps();
    expect(finishedAtKill).toContain('fetch');
    expect(finishedAtKill).not.toContain('left');
    await killWhenHeld('publish:before');
    const result = JSON.parse(await start('resume').done) as { finishReason: string; steps: string[] };
    expect(result.finishReason).toBe('stop');
    expect(result.steps).toEqual(['publish']);
    const frames = await finishedJournal();
    const tally = counts();
    // left was in flight at the first kill: it acted, was not journaled as finished, and ran again. right ran beside
    // it and may or may not have been journaled by then. No step acted more often than its start was journaled (a
    // start is durable before the step acts; publish was started, killed before acting, and started again).
    expect(tally.left).toBe(2);
    for (const step of finishedAtKill) expect(tally[step]).toBe(1);
    for (const step of STEPS) {
      const starts = frames.filter((frame) => frame.type === 'phase.start' && frame.step === step).length;
      expect(tally[step]).toBeGreaterThanOrEqual(1);
      expect(tally[step]).toBeLessThanOrEqual(starts);
    }
    expect(frames.filter((frame) => frame.type === 'phase.start' && frame.step === 'publish')).toHaveLength(2);
    expect(frames.filter((frame) => frame.type === 'run.resumed')).toHaveLength(2);
  });
});

async function finishedSteps(): Promise<string[]> {
  const { frames } = await readJournal(join(root, 'progress', 'events.ndjson'));
  return frames.flatMap((frame) => (frame.type === 'phase.finish' && frame.step ? [frame.step] : []));
}
