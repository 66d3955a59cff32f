// createRunner({ deps }) reaches everything the runner builds: with a fixed clock, ids from a seeded generator and
// a recording sleep, two runs of the same task write byte-identical journals, and the model's retry waits go
// through the injected sleep.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { createIdGenerator } from '../../src/core/ids.ts';
import { spawn } from '../../src/agent/spawn.ts';
import { LLMAgent } from '../../src/agent/llm-agent.ts';
import { createRunner } from '../../src/task/runner.ts';
import { ScriptedModel } from '../../src/testing/scripted-model.ts';
import { fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

const T = Date.parse('2026-03-01T09:00:00.000Z');

function fixedDeps() {
  let counter = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    deps: {
      now: () => T,
      newId: createIdGenerator({ now: () => T, randomBytes: (size: number) => Buffer.alloc(size, ++counter % 256) }),
      sleep: async (ms: number) => void sleeps.push(ms),
      random: () => 0.5,
    },
  };
}

// Fails the first Gather call with a retryable 503, then answers as the phase model does.
function flakyModel() {
  let failed = false;
  return phaseModel({
    gather: (options) => {
      if (!failed) {
        failed = true;
        return {
          error: new APICallError({
            message: 'Service Unavailable',
            url: 'https://api.example/v1',
            requestBodyValues: {},
            statusCode: 503,
            isRetryable: true,
          }),
        };
      }
      return options.prompt.at(-1)?.role === 'tool'
        ? { text: '- Agency runs governed agents (task/input.txt).' }
        : { toolCalls: [{ id: 'g1', name: 'read_input', input: { name: 'input.txt' } }] };
    },
  });
}

describe('createRunner({ deps })', () => {
  it('fixes every timestamp and id a run writes, and the retry waits', async () => {
    const journals: string[] = [];
    const waits: number[][] = [];
    for (const _ of [1, 2]) {
      const root = await makeTaskFolder();
      const { deps, sleeps } = fixedDeps();
      const runner = createRunner({
        model: flakyModel(),
        tools: (paths) => fixtureTools(paths),
        approvals: 'auto',
        deps,
      });
      const result = await runner.doTask(root, {}, { view: 'full' });
      expect(result).toMatchObject({ finishReason: 'completed', startedAt: '2026-03-01T09:00:00.000Z' });
      expect(result.completedAt).toBe('2026-03-01T09:00:00.000Z');
      // Durations are measured, not stamped: they (and the checkpoint digests holding them) differ between runs.
      const journal = await readFile(join(root, 'progress', 'events.ndjson'), 'utf8');
      journals.push(
        journal.replace(/"duration_ms":[\d.]+/g, '"duration_ms":0').replace(/"digest":"[0-9a-f]{64}"/g, '"digest":""'),
      );
      waits.push(sleeps);
    }
    expect(waits[0]?.length).toBeGreaterThan(0);
    expect(waits[1]).toEqual(waits[0]);
    expect(journals[1]).toBe(journals[0]);
    for (const line of (journals[0] ?? '').trim().split('\n')) {
      expect(JSON.parse(line)).toMatchObject({ ts: '2026-03-01T09:00:00.000Z' });
    }
  });
});

describe('spawn', () => {
  it("gives the handle the result's id, and takes its clock and ids from deps", async () => {
    const { deps } = fixedDeps();
    const agent = new LLMAgent({ name: 'echo', model: new ScriptedModel(['done']) });
    const handle = spawn(agent, { input: 'hi' }, { deps });
    const result = await handle.await();
    expect(result.id).toBe(handle.id);
    expect(handle.id).toMatch(/^run_/);
    const failing = spawn(
      { name: 'broken', description: '', execute: () => Promise.reject(new Error('boom')) },
      { input: 'x' },
      { deps },
    );
    const failed = await failing.await();
    expect(failed).toMatchObject({
      id: failing.id,
      startedAt: '2026-03-01T09:00:00.000Z',
      finishedAt: '2026-03-01T09:00:00.000Z',
    });
  });
});
