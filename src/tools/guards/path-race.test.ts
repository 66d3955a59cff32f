import { constants } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { readFileInScope, writeFileAtomicInScope } from './path-io.ts';
import { openInScope } from './path-open.ts';
import { resolveInScope } from './path-resolve.ts';
import type { PathRoot } from './path-roots.ts';

const ITERATIONS = 1000;
const CANARY = 'CANARY: outside the scope\n';

// Runs in a worker thread so the swaps are truly concurrent with the guard's syscalls. Every swap is a rename, so
// the path always exists and is either the real in-scope entry or a symlink to the outside (the dir flip has short
// gaps where it is missing). Each state is held briefly so the guard meets both states often.
const FLIPPER = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { kind, target, outside, spare, stop } = workerData;
const flags = new Int32Array(stop);
const hold = () => { const end = performance.now() + 0.05; while (performance.now() < end); };
while (Atomics.load(flags, 0) === 0) {
  try {
    if (kind === 'file') {
      fs.writeFileSync(spare, 'SAFE\\n');
      fs.renameSync(spare, target);
      hold();
      fs.symlinkSync(outside, spare);
      fs.renameSync(spare, target);
      hold();
    } else {
      fs.renameSync(target, spare);
      fs.symlinkSync(outside, target + '.link');
      fs.renameSync(target + '.link', target);
      hold();
      fs.unlinkSync(target);
      fs.renameSync(spare, target);
      hold();
    }
    Atomics.add(flags, 1, 1);
  } catch {}
}
`;

type Flipper = { flips(): number; stop(): Promise<void> };

function startFlipper(kind: 'file' | 'dir', target: string, outside: string): Flipper {
  const spare = `${target}.spare`;
  const stop = new SharedArrayBuffer(8);
  const flags = new Int32Array(stop);
  const worker = new Worker(FLIPPER, { eval: true, workerData: { kind, target, outside, spare, stop } });
  return {
    flips: () => Atomics.load(flags, 1),
    stop: async () => {
      Atomics.store(flags, 0, 1);
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

type Outcome = { ok: number; refused: number };

async function attempt(outcome: Outcome, action: () => Promise<void>): Promise<void> {
  try {
    await action();
    outcome.ok++;
  } catch (error) {
    if (!AgencyError.isInstance(error)) throw error;
    expect(['path_symlink_escape', 'path_not_found', 'path_invalid', 'path_read_only']).toContain(error.code);
    outcome.refused++;
  }
}

let top: string;
let task: string;
let roots: PathRoot[];

beforeEach(async () => {
  top = await mkdtemp(path.join(os.tmpdir(), 'agency-race-'));
  await mkdir(path.join(top, 'task', 'dir'), { recursive: true });
  await mkdir(path.join(top, 'outside', 'dir'), { recursive: true });
  await writeFile(path.join(top, 'outside', 'canary.txt'), CANARY);
  await writeFile(path.join(top, 'outside', 'dir', 'file.txt'), CANARY);
  await writeFile(path.join(top, 'task', 'race.txt'), 'SAFE\n');
  await writeFile(path.join(top, 'task', 'dir', 'file.txt'), 'SAFE\n');
  task = path.join(top, 'task');
  roots = [task];
});

afterEach(async () => {
  await rm(top, { recursive: true, force: true });
});

async function outsideUntouched(): Promise<void> {
  expect(await readFile(path.join(top, 'outside', 'canary.txt'), 'utf8')).toBe(CANARY);
  expect(await readFile(path.join(top, 'outside', 'dir', 'file.txt'), 'utf8')).toBe(CANARY);
  expect((await readdir(path.join(top, 'outside'))).sort()).toEqual(['canary.txt', 'dir']);
  expect(await readdir(path.join(top, 'outside', 'dir'))).toEqual(['file.txt']);
}

const LANES = 4;

// Runs ITERATIONS reads and ITERATIONS writes in a few concurrent lanes while the flipper swaps, then stops it.
async function race(
  flipper: Flipper,
  read: () => Promise<void>,
  write: (iteration: number) => Promise<void>,
): Promise<{ reads: Outcome; writes: Outcome }> {
  const reads: Outcome = { ok: 0, refused: 0 };
  const writes: Outcome = { ok: 0, refused: 0 };
  const lane = async (offset: number): Promise<void> => {
    for (let i = offset; i < ITERATIONS; i += LANES) {
      await attempt(reads, read);
      await attempt(writes, () => write(i));
    }
  };
  try {
    await Promise.all(Array.from({ length: LANES }, (_, offset) => lane(offset)));
  } finally {
    await flipper.stop();
  }
  expect(flipper.flips()).toBeGreaterThan(0);
  expect(reads.ok + reads.refused).toBe(ITERATIONS);
  expect(writes.ok + writes.refused).toBe(ITERATIONS);
  return { reads, writes };
}

describe('symlink swap races', () => {
  it(`never reads or writes the canary while the final component flips (${ITERATIONS} reads, ${ITERATIONS} writes)`, async () => {
    const flipper = startFlipper('file', path.join(task, 'race.txt'), path.join(top, 'outside', 'canary.txt'));
    const { reads } = await race(
      flipper,
      // A concurrent lane may have just truncated the file to rewrite it, so empty is possible; the canary is not.
      async () => expect(['SAFE\n', '']).toContain((await readFileInScope(roots, 'race.txt')).toString()),
      async (i) => {
        if (i % 2 === 1) return void (await writeFileAtomicInScope(roots, 'race.txt', 'SAFE\n'));
        const handle = await openInScope(roots, 'race.txt', 'write', constants.O_WRONLY | constants.O_TRUNC);
        try {
          await handle.write('SAFE\n');
        } finally {
          await handle.close();
        }
      },
    );
    expect(reads.ok).toBeGreaterThan(0);
    await outsideUntouched();
  });

  it(`never leaves the root while a parent directory flips (${ITERATIONS} reads, ${ITERATIONS} writes)`, async () => {
    const flipper = startFlipper('dir', path.join(task, 'dir'), path.join(top, 'outside', 'dir'));
    const { reads } = await race(
      flipper,
      async () => expect((await readFileInScope(roots, 'dir/file.txt')).toString()).toBe('SAFE\n'),
      async (i) => {
        if (i % 2 === 1) return void (await writeFileAtomicInScope(roots, 'dir/new.txt', 'SAFE\n'));
        await (await openInScope(roots, 'dir/created.txt', 'create')).close();
      },
    );
    expect(reads.ok).toBeGreaterThan(0);
    await outsideUntouched();
  });

  it(`never writes a read-only folder while a directory flips into a link to it (${ITERATIONS} writes)`, async () => {
    // progress/ with only artifacts/ writable; the model's artifacts/d flips between a real directory holding
    // approvals/decisions/ and the planted link d -> .., which makes the same path name the runner's decisions.
    const progress = path.join(top, 'progress');
    const decisions = path.join(progress, 'approvals', 'decisions');
    await mkdir(decisions, { recursive: true });
    await mkdir(path.join(progress, 'artifacts', 'd', 'approvals', 'decisions'), { recursive: true });
    roots = [{ label: 'progress', path: progress, writable: ['artifacts'] }];
    const flipper = startFlipper('dir', path.join(progress, 'artifacts', 'd'), '..');
    const named = (i: number) => `progress/artifacts/d/approvals/decisions/x${i}.json`;
    const { writes } = await race(
      flipper,
      async () => void (await resolveInScope(roots, 'progress/artifacts/d/approvals', 'read')),
      async (i) => {
        if (i % 2 === 1) return void (await writeFileAtomicInScope(roots, named(i), '{"decision":"approved"}'));
        await (await openInScope(roots, named(i), 'create')).close();
      },
    );
    expect(writes.ok).toBeGreaterThan(0);
    expect(writes.refused).toBeGreaterThan(0);
    expect(await readdir(decisions)).toEqual([]);
    await outsideUntouched();
  });

  it('shows the race is real: check-then-open without the descriptor re-check leaks the canary', async () => {
    const flipper = startFlipper('file', path.join(task, 'race.txt'), path.join(top, 'outside', 'canary.txt'));
    let leaks = 0;
    try {
      for (let i = 0; i < 5 * ITERATIONS && leaks === 0; i++) {
        try {
          const { path: checked } = await resolveInScope(roots, 'race.txt', 'read');
          await setImmediate(); // a tool doing a little work between its check and its read
          if ((await readFile(checked, 'utf8')) === CANARY) leaks++;
        } catch {
          // refused or mid-swap; try again
        }
      }
    } finally {
      await flipper.stop();
    }
    expect(leaks).toBeGreaterThan(0);
    expect((await stat(path.join(top, 'outside', 'canary.txt'))).size).toBe(CANARY.length);
  });
});
