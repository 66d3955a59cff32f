// The durability layer seen from outside: many runs in one process, what each run fsyncs and in which order, the
// files a resume rebuilds from the journal, and journals and states kept somewhere other than the task folder.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { stateSchema } from '../../src/task/contracts/state.ts';
import { nodeDurableFs } from '../../src/task/fs/durable-fs.ts';
import { createFsSpy } from '../support/fs-spy.ts';
import { foldJournal } from '../../src/task/journal-fold.ts';
import { openFileJournal } from '../../src/task/journal/file-journal.ts';
import { createMemoryJournal, type MemoryJournal } from '../../src/task/journal/memory-journal.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { createRunner } from '../../src/task/runner.ts';
import { createMemoryStateStore } from '../../src/task/state-store.ts';
import { fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

const frames = async (root: string): Promise<EventFrame[]> =>
  (await readJournal(join(root, 'progress', 'events.ndjson'))).frames;
const fixtureRunner = (options: Parameters<typeof createRunner>[0] = {}) =>
  createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto', ...options });

describe('one runner, many runs', () => {
  it('runs 8 governed tasks at once: none waits for another one’s fsync, and each paper trail is whole and its own', async () => {
    const roots = await Promise.all(Array.from({ length: 8 }, () => makeTaskFolder()));
    const slow = roots[0] as string;
    // The first run's disk takes 150 ms per fsync; the others' are as fast as this machine's.
    const slowDisk = createFsSpy(nodeDurableFs, { delay: (call) => (call.op === 'fsync' ? 150 : undefined) });
    const finishedAt = new Map<string, number>();
    const runner = fixtureRunner({
      journal: (paths, options) =>
        openFileJournal(paths.events, { ...options, fs: paths.root === slow ? slowDisk.fs : nodeDurableFs }),
    });
    const results = await Promise.all(
      roots.map(async (root) => {
        const result = await runner.doTask(root, {}, { view: 'full' });
        finishedAt.set(root, performance.now());
        return result;
      }),
    );
    expect(results.map((result) => result.finishReason)).toEqual(Array(8).fill('completed'));
    expect(slowDisk.count('fsync')).toBeGreaterThanOrEqual(8);
    const slowEnd = finishedAt.get(slow) as number;
    for (const root of roots.slice(1)) expect(finishedAt.get(root)).toBeLessThan(slowEnd);

    const taskIds = new Set<string>();
    for (const [index, root] of roots.entries()) {
      const journal = await frames(root);
      expect(journal.map((frame) => frame.seq)).toEqual(journal.map((_, i) => i + 1));
      expect(journal[0]).toMatchObject({ type: 'run.started', data: { spec: { task_id: results[index]?.taskId } } });
      expect(journal.at(-1)).toMatchObject({ type: 'finish', data: { reason: 'completed' } });
      expect(journal.filter((frame) => frame.type === 'run.started')).toHaveLength(1);
      taskIds.add(results[index]?.taskId as string);
      const state = stateSchema.parse(JSON.parse(await readFile(join(root, 'progress', 'state.json'), 'utf8')));
      expect(state).toMatchObject({ task_id: results[index]?.taskId, status: 'completed', last_seq: journal.length });
      expect(await readFile(join(root, 'progress', 'artifacts', 'summary.md'), 'utf8')).not.toBe('');
    }
    expect(taskIds.size).toBe(8);
  }, 60_000);

  it('keeps journals and states where the runner is told to: a memory journal and state store, resumed', async () => {
    const root = await makeTaskFolder();
    const journals = new Map<string, MemoryJournal>();
    const memoryRunner = () =>
      fixtureRunner({
        journal: (paths, options) => {
          const journal = createMemoryJournal({ ...options, frames: journals.get(paths.root)?.durableFrames ?? [] });
          journals.set(paths.root, journal);
          return journal;
        },
        stateStore: () => createMemoryStateStore(),
      });
    const stopped = await memoryRunner().doTask(root, { budgets: { maxIterations: 3 } });
    expect(stopped.finishReason).toBe('budget.iterations');
    const resumer = memoryRunner();
    const done = await resumer.run(await resumer.resume(root, { budgets: { maxIterations: 20 } }));
    expect(done.finishReason).toBe('completed');
    const journal = journals.get(root)?.durableFrames ?? [];
    expect(journal.map((frame) => frame.type)).toContain('run.resumed');
    expect(foldJournal(journal).finishReason).toBe('completed');
    const progress = await readdir(join(root, 'progress'));
    expect(progress).not.toContain('events.ndjson');
    expect(progress).not.toContain('state.json');
  }, 30_000);
});

describe('what a run fsyncs', () => {
  it('makes a deliverable durable before any journal commit that could name it, and fsyncs ≤ 2 times per durable step', async () => {
    const root = await makeTaskFolder();
    const spy = createFsSpy();
    const runner = fixtureRunner({ deps: { fs: spy.fs } });
    let resultAt = -1;
    runner.subscribe((frame) => {
      if (frame.type === 'tool.result' && frame.data?.tool === 'write_artifact') resultAt = spy.calls.length;
    });
    expect((await runner.doTask(root)).finishReason).toBe('completed');
    const fsyncs = spy.calls.flatMap((call, index) => (call.op === 'fsync' ? [{ index, path: call.path ?? '' }] : []));
    const artifact = fsyncs.find((call) => call.path.endsWith('/summary.md'));
    const commitAfter = fsyncs.find((call) => call.index > resultAt && call.path.endsWith('/events.ndjson'));
    expect(artifact?.index).toBeLessThan(resultAt);
    expect(commitAfter).toBeDefined();
    const steps = (await frames(root)).filter((frame) => frame.type === 'phase.finish').length;
    expect(fsyncs.length / steps).toBeLessThanOrEqual(2);
  }, 30_000);
});

describe('files the journal holds are rebuilt on resume', () => {
  it('removes the temp file of a state write cut short after the finish, though it refuses to resume the run', async () => {
    const root = await makeTaskFolder();
    expect((await fixtureRunner().doTask(root)).finishReason).toBe('completed');
    const stray = join(root, 'progress', '.state.json.0123456789ab.agency-tmp');
    await writeFile(stray, '{"version": "agent.st');
    await expect(fixtureRunner().resume(root)).rejects.toMatchObject({ code: 'task_folder_invalid' });
    expect(await readdir(join(root, 'progress'))).not.toContain('.state.json.0123456789ab.agency-tmp');
  });

  it('brings back each derived file deleted, torn or edited while the run was down, and says so', async () => {
    const root = await makeTaskFolder();
    expect((await fixtureRunner().doTask(root, { budgets: { maxIterations: 4 } })).finishReason).toBe(
      'budget.iterations',
    );
    const progress = join(root, 'progress');
    const before = await frames(root);
    const requested = before.find((frame) => frame.type === 'approval.requested')?.data as { id: string };
    const gather = (await readdir(join(progress, 'steps'))).find((name) => name.endsWith('-gather')) as string;
    const originals = new Map<string, string>();
    const damage = async (file: string, text: string | undefined) => {
      originals.set(file, await readFile(join(progress, file), 'utf8'));
      if (text === undefined) await rm(join(progress, file));
      else await writeFile(join(progress, file), text);
    };
    await damage('plan/0001.json', undefined);
    await damage('plan/current.json', '{"goal": "torn');
    await damage(`approvals/requests/${requested.id}.json`, undefined);
    await damage(`approvals/decisions/${requested.id}.json`, '');
    await damage(`steps/${gather}/output.json`, '{"output": "forged"}');
    await damage('findings.md', undefined);
    await damage('notes.md', '');
    await damage('todo.md', undefined);
    await damage('sources.jsonl', undefined);
    await damage('spec.json', '{"version": "task.sp');

    const resumer = fixtureRunner();
    const handle = await resumer.resume(root, { budgets: { maxIterations: 20 } });
    const resumed = (await frames(root)).slice(before.length);
    const withoutBudgets = (text: string) => ({ ...JSON.parse(text), budgets: null }) as unknown;
    for (const [file, text] of originals) {
      const now = await readFile(join(progress, file), 'utf8');
      // spec.json comes back, then takes the raised budgets (journaled as budget.changed).
      if (file === 'spec.json') expect(withoutBudgets(now)).toEqual(withoutBudgets(text));
      else if (file !== 'notes.md') expect(now, file).toBe(text);
      const warned = resumed.some((frame) => frame.type === 'warning' && frame.message?.includes(`progress/${file}`));
      expect(warned, `a warning names progress/${file}`).toBe(true);
    }
    // notes.md is rebuilt from the journal's own lines; the run adds its own after.
    expect(await readFile(join(progress, 'notes.md'), 'utf8')).toBe(originals.get('notes.md'));
    expect((await resumer.run(handle)).finishReason).toBe('completed');
  }, 30_000);
});
