import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolMessage } from '../core/messages.ts';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { defineTool } from '../tools/define-tool.ts';
import { COMPRESSED_MARKER } from './compression.ts';
import { LLMAgent } from './llm-agent.ts';

const fetchPage = defineTool({
  name: 'fetch_page',
  description: 'Fetches a page',
  input: z.object({ n: z.number() }),
  effects: 'read',
  execute: ({ n }) => `page ${n}: ${'lorem ipsum '.repeat(100)}`,
});

const loop = (pages: number) =>
  new ScriptedModel((_options, index) =>
    index < pages ? { toolCalls: [{ id: `p${index}`, name: 'fetch_page', input: { n: index } }] } : 'Summary written.',
  );

function toolOutputs(prompt: Array<{ role: string; content: unknown }>) {
  return prompt
    .filter((message) => message.role === 'tool')
    .flatMap((message) =>
      (message as ToolMessage).content.map((part) => (part.type === 'tool-result' ? part.output : null)),
    );
}

describe('context compression', () => {
  it('summarises old tool results with the compress model, keeping the last 2 iterations intact', async () => {
    const model = loop(5);
    const summarizer = new ScriptedModel(() => 'Pages 0-2 were lorem ipsum.');
    const result = await new LLMAgent({
      name: 'reader',
      model,
      tools: [fetchPage],
      compressThreshold: 3_000,
      compressModel: summarizer,
    }).execute({ input: 'read pages' });
    expect(result.output).toBe('Summary written.');
    expect(summarizer.calls.length).toBeGreaterThan(0);
    expect(JSON.stringify(summarizer.calls[0]?.options.prompt)).toContain('page 0: lorem');
    const last = model.calls.at(-1)?.options.prompt ?? [];
    const outputs = toolOutputs(last);
    const compressed = outputs.filter(
      (output) => output?.type === 'text' && output.value.startsWith(COMPRESSED_MARKER),
    );
    expect(compressed.length).toBeGreaterThan(0);
    // The two most recent iterations are never compressed.
    for (const output of outputs.slice(-2))
      expect(output).toMatchObject({ type: 'text', value: expect.stringMatching(/^page \d: lorem/) });
    expect(JSON.stringify(last)).toContain('Pages 0-2 were lorem ipsum.');
    // Every tool call still has its result.
    expect(outputs).toHaveLength(5);
  });

  it('continues uncompressed with a warning when the summary fails', async () => {
    const model = loop(4);
    const failing = new ScriptedModel(() => ({ error: new Error('summariser down') }));
    const result = await new LLMAgent({
      name: 'reader',
      model,
      tools: [fetchPage],
      compressThreshold: 2_000,
      compressModel: failing,
      modelPolicy: { maxRetries: 0 },
    }).execute({ input: 'read pages' });
    expect(result.finishReason).toBe('stop');
    expect(result.warnings[0]).toMatch(/Context compression failed, continuing uncompressed: .*summariser down/);
    const outputs = toolOutputs(model.calls.at(-1)?.options.prompt ?? []);
    expect(outputs.every((output) => output?.type === 'text' && output.value.startsWith('page'))).toBe(true);
  });

  it('is disabled by a negative threshold and falls back to the main model otherwise', async () => {
    const disabled = loop(4);
    await new LLMAgent({ name: 'r', model: disabled, tools: [fetchPage], compressThreshold: -1 }).execute({
      input: 'x',
    });
    expect(disabled.calls).toHaveLength(5);
    const main = new ScriptedModel((options, index) => {
      const isSummary =
        options.prompt[0]?.role === 'system' && String(options.prompt[0].content).startsWith('You compress');
      if (isSummary) return 'compressed by main model';
      return index < 5 ? { toolCalls: [{ name: 'fetch_page', input: { n: index } }] } : 'done';
    });
    await new LLMAgent({ name: 'r', model: main, tools: [fetchPage], compressThreshold: 3_000 }).execute({
      input: 'x',
    });
    expect(JSON.stringify(main.calls.at(-1)?.options.prompt)).toContain('compressed by main model');
  });
});
