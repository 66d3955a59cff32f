import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { defineTool } from '../tools/define-tool.ts';
import { requestSuspend } from '../tools/suspend-request.ts';
import { LLMAgent } from './llm-agent.ts';
import { extractJson, parseStructuredAnswer } from './structured-output.ts';
import type { AgentEvent } from './types.ts';

const sum = z.object({ sum: z.number() });
const add = defineTool({
  name: 'add',
  description: 'adds',
  input: z.object({ a: z.number(), b: z.number() }),
  effects: 'read',
  execute: ({ a, b }) => a + b,
});

describe('parsing a structured answer', () => {
  it('reads JSON alone, fenced, or inside prose, arrays included', () => {
    expect(extractJson(' {"a": 1} ')).toEqual({ a: 1 });
    expect(extractJson('Here:\n```json\n{"a": 2}\n```\nDone.')).toEqual({ a: 2 });
    expect(extractJson('The plan is {"a": {"b": 3}} as asked.')).toEqual({ a: { b: 3 } });
    expect(extractJson('Ids: [{"id": 1}, {"id": 2}]')).toEqual([{ id: 1 }, { id: 2 }]);
    expect(extractJson('no JSON here')).toBeUndefined();
  });

  it('names each problem by its field', () => {
    expect(parseStructuredAnswer(sum, '{"sum": "five", "extra": 1}')).toEqual({
      success: false,
      issues: ['"sum": Invalid input: expected number, received string'],
    });
    expect(parseStructuredAnswer(sum.strict(), '{"sum": 5, "extra": 1}')).toEqual({
      success: false,
      issues: ['"(answer)": Unrecognized key: "extra"'],
    });
    expect(parseStructuredAnswer(sum, 'five')).toEqual({ success: false, issues: ['the answer is not valid JSON'] });
  });
});

describe('LLMAgent with a schema', () => {
  it('streams the answer as text deltas and ends with the parsed object', async () => {
    const model = new ScriptedModel(['{"sum": 5} ']);
    const stream = new LLMAgent({ name: 'a', model, schema: sum }).stream({ input: '2+3?' });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const deltas = events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('{"sum": 5} ');
    const result = await stream.result;
    expectTypeOf(result.object).toEqualTypeOf<{ sum: number } | undefined>();
    expect(result.object).toEqual({ sum: 5 });
    expect(events.at(-1)).toMatchObject({ type: 'finish', result: { object: { sum: 5 } } });
    expect(model.calls[0]?.options.responseFormat).toMatchObject({ type: 'json', schema: { required: ['sum'] } });
  });

  it('a repair after the iteration cap stays without tools', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'add', input: { a: 2, b: 3 } }] },
      'It is five.',
      '{"sum": 5}',
    ]);
    const agent = new LLMAgent({ name: 'a', model, tools: [add], maxIterations: 1, schema: sum });
    const result = await agent.execute({ input: '2+3?' });
    expect(result).toMatchObject({ finishReason: 'max-iterations' });
    expect(result.object).toEqual({ sum: 5 });
    expect(model.calls.map((call) => call.options.toolChoice?.type)).toEqual([undefined, 'none', 'none']);
  });

  it('fails at once with maxRepairs 0; an execution schema replaces the agent one', async () => {
    const model = new ScriptedModel(['{"total": 5}', '{"total": 5}']);
    const agent = new LLMAgent({ name: 'a', model, schema: sum, maxRepairs: 0 });
    const failed = await agent.execute({ input: '2+3?' });
    expect(failed.error).toMatchObject({ code: 'structured_output_invalid' });
    expect(failed.error?.message).toContain('"sum": Invalid input: expected number, received undefined');
    expect(model.calls).toHaveLength(1);
    const total = z.object({ total: z.number() });
    const own = await agent.execute({ input: '2+3?' }, { schema: total });
    expectTypeOf(own.object).toEqualTypeOf<{ total: number } | undefined>();
    expect(own.object).toEqual({ total: 5 });
  });

  it('a suspended run keeps its execution schema when resumed', async () => {
    const ask = defineTool({
      name: 'ask',
      description: 'asks the operator',
      input: z.object({ question: z.string() }),
      effects: 'read',
      execute: (input, context) => context.resumeData ?? requestSuspend({ question: input.question }),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'q', name: 'ask', input: { question: 'Which numbers?' } }] },
      '{"sum": 7}',
    ]);
    const agent = new LLMAgent({ name: 'a', model, tools: [ask] });
    const first = await agent.execute({ input: 'add' }, { schema: sum });
    const final = await first.suspended?.resume('3 and 4');
    expect(final?.object).toEqual({ sum: 7 });
    expect(model.calls[1]?.options.responseFormat).toMatchObject({ type: 'json' });
  });

  it('refuses a schema a model cannot be given', () => {
    expect(() => new LLMAgent({ name: 'a', model: new ScriptedModel([]), schema: z.date() })).toThrow(
      /"schema" cannot be given to a model as JSON Schema/,
    );
  });
});
