// The runner as a service: runs addressed by task id (an HTTP layer sends a fresh object every time), and finished
// runs released, so a long-lived process hosting many runs does not grow.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import type { Loop } from '../../src/task/loop.ts';
import { createRunner } from '../../src/task/runner.ts';
import { fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

async function pending(root: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const names = await readdir(join(root, 'progress', 'approvals', 'requests')).catch((): string[] => []);
    if (names.some((name) => name.endsWith('.json') && !name.startsWith('.'))) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no approval request appeared');
}

describe('runs are addressed by task id', () => {
  it('status, subscribe and stop take an id or any object carrying it', async () => {
    const [first, second] = [await makeTaskFolder(), await makeTaskFolder()];
    const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'file' });
    const a = await runner.startTask(first);
    const b = await runner.startTask(second);
    const seen: EventFrame[] = [];
    const off = runner.subscribe(a.taskId, (frame) => seen.push(frame));
    const runs = [runner.run(a.taskId), runner.run({ taskId: b.taskId })];
    await Promise.all([pending(first), pending(second)]);
    // The request file is written before the run journals that it waits, so the status may lag it by a moment.
    await expect.poll(() => runner.status({ taskId: a.taskId })?.status).toBe('waiting_approval');
    expect(runner.status({ taskId: a.taskId })).toMatchObject({
      taskId: a.taskId,
      root: first,
      status: 'waiting_approval',
    });
    expect(runner.stop(a.taskId, 'stopped')).toBe(true);
    expect(runner.stop({ taskId: b.taskId }, 'cancelled')).toBe(true);
    const results = await Promise.all(runs);
    expect(results.map((result) => result.finishReason)).toEqual(['stopped', 'cancelled']);
    off();
    // Only the subscribed run's frames, and all of them from the subscription on.
    expect(seen.length).toBeGreaterThan(3);
    expect(seen.at(-1)).toMatchObject({ type: 'finish', data: { reason: 'stopped' } });
    expect(new Set(seen.map((frame) => frame.id)).size).toBe(seen.length);
    // Finished runs are released: nothing to find, nothing to stop.
    expect(runner.status(a.taskId)).toBeUndefined();
    expect(runner.stop(a.taskId)).toBe(false);
    await expect(runner.run(a.taskId)).rejects.toThrow(/is not open in this runner/);
  });
});

describe('a runner that has run many tasks holds nothing of them', () => {
  // /dev/shm keeps the thousands of small runs fast; the runner's own costs are what is measured.
  const base = '/dev/shm';
  let dir: string;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps its heap flat over 750 finished runs', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    dir = await mkdtemp(join(base, 'agency-many-'));
    const loop: Loop = {
      name: 'one-step',
      version: '1',
      run: async (context) => {
        await context.step('note', 'files', async () => ({ ok: true }));
        return { reason: 'completed', output: 'done' };
      },
    };
    const runner = createRunner({ model: phaseModel(), loops: [loop] });
    const runMany = async (from: number, count: number) => {
      for (let index = from; index < from + count; index++) {
        const root = join(dir, String(index));
        await mkdir(join(root, 'task'), { recursive: true });
        await writeFile(join(root, 'task', 'brief.md'), '# Note\n');
        const result = await runner.doTask(root, { loop: 'one-step' });
        expect(runner.status(result.taskId)).toBeUndefined();
        await rm(root, { recursive: true, force: true });
      }
    };
    // The spaces objects live in. heapUsed also counts V8's compiled code and bytecode (its code and trusted
    // spaces), which the optimizing compiler and bytecode flushing grow and shrink on their own schedule: a busy
    // host moved it by a megabyte between two looks, in either direction.
    const objectBytes = () => {
      gc();
      return getHeapSpaceStatistics()
        .filter((space) => /^(new|old|large_object|new_large_object)_space$/.test(space.space_name))
        .reduce((sum, space) => sum + space.space_used_size, 0);
    };
    await runMany(0, 150);
    const before = objectBytes();
    await runMany(150, 600);
    const grown = objectBytes() - before;
    // A retained run costs kilobytes (its session, fold, journal); 600 of them would be megabytes.
    expect(grown / 600).toBeLessThan(512);
  }, 120_000);
});
