import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { defineTool } from '../tools/define-tool.ts';
import { LLMAgent } from './llm-agent.ts';
import type { SerializedRun } from './suspend.ts';

let runs = 0;
const counter = defineTool({
  name: 'count',
  description: 'counts',
  input: z.object({ n: z.number() }),
  effects: 'write',
  execute: ({ n }) => `counted ${n} (run ${++runs})`,
});
const script = [
  { toolCalls: [{ id: 'a', name: 'count', input: { n: 1 } }] },
  { toolCalls: [{ id: 'b', name: 'count', input: { n: 2 } }] },
  'Counted twice.',
];

describe('checkpoints', () => {
  it('are taken before each iteration and before each batch of tool calls', async () => {
    const checkpoints: SerializedRun[] = [];
    const agent = new LLMAgent({ name: 'counter', model: new ScriptedModel(script), tools: [counter] });
    const result = await agent.execute(
      { input: 'count' },
      { onCheckpoint: (checkpoint) => void checkpoints.push(checkpoint) },
    );
    expect(result.output).toBe('Counted twice.');
    const stages = checkpoints.map((checkpoint) => (checkpoint.state as { stage: { at: string } }).stage.at);
    expect(stages).toEqual(['pre', 'tools', 'pre', 'tools', 'pre']);
    expect(
      checkpoints.every((checkpoint) => checkpoint.schema === 'agency.suspended-run.v1' && checkpoint.payload === null),
    ).toBe(true);
  });

  it('let a new agent continue a run from any checkpoint, repeating no completed tool call', async () => {
    const checkpoints: SerializedRun[] = [];
    const first = new LLMAgent({ name: 'counter', model: new ScriptedModel(script), tools: [counter] });
    const full = await first.execute(
      { input: 'count' },
      { onCheckpoint: (checkpoint) => void checkpoints.push(JSON.parse(JSON.stringify(checkpoint))) },
    );
    // Resume from the checkpoint taken before the second batch of tools: only the last model call remains.
    const before = runs;
    const model = new ScriptedModel(script.slice(2));
    const resumed = await new LLMAgent({ name: 'counter', model, tools: [counter] }).resumeSerialized(checkpoints[3]);
    expect(resumed.output).toBe(full.output);
    expect(runs - before).toBe(1);
    expect(resumed.calls.map((step) => step.toolCallId)).toEqual(['a', 'b']);
    expect(resumed.usage.totalTokens).toBeGreaterThan(0);
  });
});

describe('preTool results', () => {
  it('answer for a tool without running it', async () => {
    const before = runs;
    const model = new ScriptedModel(script);
    const agent = new LLMAgent({
      name: 'counter',
      model,
      tools: [counter],
      processors: [
        {
          preTool: ({ call }) =>
            call.toolCallId === 'a'
              ? { result: { ok: true, output: 'from journal', modelOutput: { type: 'text', value: 'from journal' } } }
              : undefined,
        },
      ],
    });
    const result = await agent.execute({ input: 'count' });
    expect(runs - before).toBe(1);
    expect(result.calls.map((step) => step.output)).toEqual(['from journal', expect.stringMatching(/^counted 2/)]);
    expect(model.calls[1]?.options.prompt.at(-1)).toMatchObject({
      content: [{ output: { type: 'text', value: 'from journal' } }],
    });
  });
});
