import type { LanguageModelV4 } from '@ai-sdk/provider';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSuite } from './run-suite.ts';
import { loadSuite } from './suite.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agency-run-suite-'));
  for (const name of ['a', 'b', 'c', 'd']) {
    await mkdir(join(dir, 'suite', name, 'task'), { recursive: true });
    await writeFile(join(dir, 'suite', name, 'task/brief.md'), `# Case ${name}\n`);
    await writeFile(join(dir, 'suite', name, 'expect.yaml'), '');
  }
});
afterEach(() => rm(dir, { recursive: true, force: true }));

// A model that holds each call until two are in flight (or 10 s pass), then refuses it: the most calls ever in
// flight at once is how many cases ran side by side, however slowly each got to its first call.
function countingModel(state: { active: number; most: number; waiting: Array<() => void> }): LanguageModelV4 {
  const call = async (): Promise<never> => {
    state.active++;
    state.most = Math.max(state.most, state.active);
    await new Promise<void>((resolve) => {
      state.waiting.push(resolve);
      if (state.waiting.length >= 2) for (const release of state.waiting.splice(0)) release();
      setTimeout(resolve, 10_000).unref();
    });
    state.active--;
    throw new Error('the model is down');
  };
  return {
    specificationVersion: 'v4',
    provider: 'test',
    modelId: 'm',
    supportedUrls: {},
    doGenerate: call,
    doStream: call,
  };
}

describe('runSuite', () => {
  it('runs at most `concurrency` cases at once, each in its own copy, and fails each with its error', async () => {
    const state = { active: 0, most: 0, waiting: [] as Array<() => void> };
    const suite = await loadSuite(join(dir, 'suite'));
    const report = await runSuite(suite, {
      workDir: join(dir, 'work'),
      concurrency: 2,
      names: { suite: 'suite', model: 'test' },
      setup: async () => ({ model: countingModel(state), runner: { tools: [] }, spec: {} }),
    });
    expect(state.most).toBe(2);
    expect(report.cases.map((item) => [item.name, item.status])).toEqual([
      ['a', 'failed'],
      ['b', 'failed'],
      ['c', 'failed'],
      ['d', 'failed'],
    ]);
    expect(report.cases[0]?.error).toMatch(/^a: .*the model is down/);
    expect(report.totals).toMatchObject({ cases: 4, passed: 0, failed: 4, skipped: 0, successRate: 0 });
    expect((await readdir(join(dir, 'work'))).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(await readdir(join(dir, 'suite/a'))).toEqual(expect.not.arrayContaining(['progress']));
  });

  it('starts nothing once aborted, and says the report is partial', async () => {
    const controller = new AbortController();
    controller.abort();
    const report = await runSuite(await loadSuite(join(dir, 'suite')), {
      workDir: join(dir, 'work'),
      signal: controller.signal,
      names: { suite: 'suite', model: 'test' },
      setup: () => Promise.reject(new Error('never called')),
    });
    expect(report.interrupted).toBe(true);
    expect(report.cases.every((item) => item.status === 'skipped')).toBe(true);
    expect(report.totals).toMatchObject({ cases: 4, skipped: 4, successRate: 0 });
  });
});
