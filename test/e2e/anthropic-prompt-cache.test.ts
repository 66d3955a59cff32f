import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { findModelPrice } from '../../src/core/model-prices.ts';
import { createInMemoryMemoryStore } from '../../src/memory/in-memory-memory-store.ts';
import { createMemoryManager } from '../../src/memory/memory-manager.ts';
import { resolveModel } from '../../src/model/resolve-model.ts';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { createRunner, DEFAULT_PERSONA } from '../../src/task/runner.ts';
import { type CacheUsage, startAnthropicPhaseServer } from '../support/anthropic-phase-server.ts';
import { fixtureTools, makeTaskFolder } from '../support/governed-fixture.ts';

// A governed run through the real @ai-sdk/anthropic provider, against a local server that answers in the recorded
// fixtures' format and reports cache reads and writes as Anthropic does. No recorded Anthropic response has
// non-zero cache fields, so the server sets them from what the requests mark and repeat.

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

// A persona the length of a real operator's system prompt: with the tools, the stable prefix passes Anthropic's
// 1,024-token minimum for caching.
const persona = [
  DEFAULT_PERSONA,
  '',
  'House rules:',
  ...Array.from({ length: 60 }, (_, i) => `- Rule ${i + 1}: tie every claim to the file under task/ it comes from.`),
].join('\n');

it('marks the stable prefix and the task context for Anthropic, reads them back, and prices reads at the cache rate', async () => {
  const server = await startAnthropicPhaseServer();
  close = server.close;
  const model = resolveModel('anthropic:claude-sonnet-4-5', {
    env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url },
  });
  const store = createInMemoryMemoryStore();
  await store.put(
    { kind: 'agent', id: 'governed' },
    { kind: 'constraint', key: 'scope', text: 'Write only under progress/artifacts/.' },
  );
  const root = await makeTaskFolder();
  const result = await createRunner({
    model,
    persona,
    tools: (paths) => fixtureTools(paths),
    approvals: 'auto',
    memory: ({ taskId, onEvent }) =>
      createMemoryManager({ store, channels: { agent: 'governed', task: taskId }, onEvent }),
  }).doTask(root);
  expect(result.finishReason).toBe('completed');

  // Every request: the persona, then the pinned memory marked as the end of the stable prefix; the task context
  // first in the messages, marked too.
  const ephemeral = { type: 'ephemeral' };
  for (const body of server.bodies) {
    expect(body.system?.map((block) => block.cache_control)).toEqual([undefined, ephemeral]);
    expect(body.system?.[0]?.text).toBe(persona);
    expect(body.system?.[1]?.text).toContain('Write only under progress/artifacts/.');
    const context = body.messages[0]?.content[0];
    expect(context?.text).toMatch(/^# Task brief \(task\/brief\.md\)/);
    expect(context?.cache_control).toEqual(ephemeral);
  }
  // Plan's schema has an open object (a json_validate check's schema), so Anthropic gets it as a forced `json`
  // tool; Verify's is closed, so it goes as output_config.format.
  const phases = server.bodies.map((body) => /Phase: (\w+)/.exec(JSON.stringify(body.messages))?.[1]);
  expect(phases).toEqual(['GATHER', 'GATHER', 'PLAN', 'ACT', 'ACT', 'VERIFY']);
  expect(server.bodies[2]?.tools?.map((tool) => tool.name)).toContain('json');
  expect(server.bodies[5]?.output_config?.format).toMatchObject({ type: 'json_schema' });

  // The second call of the Gather step reads back all that the first one wrote: tools, persona, pinned memory and
  // the task context. Act's first call reads the stable prefix Gather wrote. Plan's and Verify's first calls read
  // nothing: a structured answer changes the tools (Plan's `json` tool) or the output format (Verify's), and either
  // change invalidates Anthropic's cache.
  const usages = server.usages;
  expect(usages[0]).toMatchObject({ cacheRead: 0, cacheWrite: expect.any(Number) });
  expect(usages[0]?.cacheWrite).toBeGreaterThan(1_024);
  expect(usages[1]?.cacheRead).toBe(usages[0]?.cacheWrite);
  expect(usages[3]?.cacheRead).toBeGreaterThan(1_024);
  expect([usages[2]?.cacheRead, usages[5]?.cacheRead]).toEqual([0, 0]);

  // agency reports each call's cache reads and prices reads and writes at their own rates.
  const price = findModelPrice({ provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5' })?.price;
  expect(price).toMatchObject({ input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 });
  const deltas = (await frames(root)).filter((frame) => frame.type === 'usage.delta');
  expect(deltas).toHaveLength(usages.length);
  const cost = (usage: CacheUsage, read = 0.3, write = 3.75) =>
    (usage.input * 3 + usage.cacheRead * read + usage.cacheWrite * write + usage.output * 15) / 1e6;
  deltas.forEach((frame, index) => {
    const usage = usages[index] as CacheUsage;
    expect(frame.usage_delta).toMatchObject({
      input_tokens: usage.input + usage.cacheRead + usage.cacheWrite,
      cached_input_tokens: usage.cacheRead,
      output_tokens: usage.output,
    });
    expect(frame.usage_delta?.cost_usd).toBeCloseTo(cost(usage), 9);
  });
  const paid = usages.reduce((sum, usage) => sum + cost(usage), 0);
  const uncached = usages.reduce((sum, usage) => sum + cost(usage, 3, 3), 0);
  expect(result.usage.cachedInputTokens).toBe(usages.reduce((sum, usage) => sum + usage.cacheRead, 0));
  expect(result.usage.costUsd).toBeCloseTo(paid, 9);
  // Six calls save about a fifth; the saving grows with every further call of a phase.
  expect(paid).toBeLessThan(uncached * 0.85);
});

async function frames(root: string): Promise<EventFrame[]> {
  return (await readJournal(join(root, 'progress', 'events.ndjson'))).frames;
}
