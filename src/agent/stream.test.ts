import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { defineTool } from '../tools/define-tool.ts';
import { LLMAgent } from './llm-agent.ts';
import type { AgentEvent } from './types.ts';

const add = defineTool({
  name: 'add',
  description: 'adds',
  input: z.object({ a: z.number(), b: z.number() }),
  effects: 'read',
  execute: ({ a, b }) => a + b,
});

describe('LLMAgent.stream', () => {
  it('yields typed events in order and resolves the result', async () => {
    const model = new ScriptedModel([
      { reasoning: 'add them', toolCalls: [{ id: 'c1', name: 'add', input: { a: 2, b: 2 } }] },
      { text: 'Two plus two is four.' },
    ]);
    const stream = new LLMAgent({ name: 'a', model, tools: [add] }).stream({ input: '2+2?' });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.type)).toEqual([
      'iteration-finish',
      'thinking',
      'tool-call-start',
      'tool-call-result',
      ...Array(5).fill('text-delta'),
      'iteration-finish',
      'finish',
    ]);
    expect(
      events
        .filter((event) => event.type === 'text-delta')
        .map((event) => event.type === 'text-delta' && event.delta)
        .join(''),
    ).toBe('Two plus two is four.');
    expect(events[3]).toMatchObject({ type: 'tool-call-result', toolCallId: 'c1', toolName: 'add', output: 4 });
    const result = await stream.result;
    expect(result.output).toBe('Two plus two is four.');
    expect(events.at(-1)).toEqual({ type: 'finish', result });
    expect(model.calls.every((call) => call.mode === 'stream')).toBe(true);
  });

  it('stops the run cleanly when the consumer stops reading', async () => {
    let toolRuns = 0;
    const tick = defineTool({
      name: 'tick',
      description: 'd',
      input: z.object({}),
      effects: 'read',
      execute: () => ++toolRuns,
    });
    const model = new ScriptedModel(() => ({ text: 'working', toolCalls: [{ name: 'tick', input: {} }] }));
    const stream = new LLMAgent({ name: 'a', model, tools: [tick], maxIterations: 1000 }).stream({ input: 'x' });
    let seen = 0;
    for await (const event of stream) {
      if (event.type === 'tool-call-result' && ++seen === 3) break;
    }
    const result = await stream.result;
    expect(result).toMatchObject({ finishReason: 'aborted' });
    const callsAtEnd = model.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(model.calls.length).toBe(callsAtEnd);
    expect(callsAtEnd).toBeLessThanOrEqual(5);
  });

  it('never blocks on a consumer that abandons the stream without reading', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, 'ok']);
    const stream = new LLMAgent({ name: 'a', model, tools: [add] }).stream({ input: 'x' });
    // Nobody iterates; the run still finishes.
    await expect(stream.result).resolves.toMatchObject({ finishReason: 'stop', output: 'ok' });
  });

  it('ends with an aborted result when the signal aborts mid-stream', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([{ delayMs: 5_000, text: 'slow' }]);
    const stream = new LLMAgent({ name: 'a', model }).stream({ input: 'x' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: 'finish', result: { finishReason: 'aborted' } });
  });

  it('reports a stream that fails after content as an error event and result', async () => {
    const model = new ScriptedModel([{ text: 'partial answer', streamError: new Error('connection reset') }]);
    const stream = new LLMAgent({ name: 'a', model }).stream({ input: 'x' });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types).toContain('error');
    expect(await stream.result).toMatchObject({ finishReason: 'error' });
  });

  it('can be iterated only once', () => {
    const stream = new LLMAgent({ name: 'a', model: new ScriptedModel(['x']) }).stream({ input: 'x' });
    stream[Symbol.asyncIterator]();
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
  });
});
