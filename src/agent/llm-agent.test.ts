import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Message, ToolMessage } from '../core/messages.ts';
import { apiError, ScriptedModel } from '../testing/scripted-model.ts';
import { defineTool } from '../tools/define-tool.ts';
import { CACHE_BREAKPOINT } from '../memory/prompt-assembly.ts';
import { TRUNCATION_MARKER } from './history.ts';
import { LLMAgent } from './llm-agent.ts';
import { SYNTHESIS_INSTRUCTION } from './run-loop.ts';
import type { AgentEvent } from './types.ts';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  effects: 'read',
  execute: ({ a, b }) => a + b,
});

function toolMessages(messages: Message[]): ToolMessage[] {
  return messages.filter((message): message is ToolMessage => message.role === 'tool');
}

function promptOf(model: ScriptedModel, call: number) {
  return model.calls[call]?.options.prompt ?? [];
}

describe('LLMAgent: the loop', () => {
  it('builds system prompt, memory, history and input in order, runs tools and feeds results back', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'add', input: { a: 2, b: 3 } }] },
      'The sum is 5.',
    ]);
    const agent = new LLMAgent({
      name: 'calc',
      model,
      instructions: 'You add numbers.',
      tools: [add],
      memory: () => [{ role: 'user', content: [{ type: 'text', text: 'Remember: be brief.' }] }],
    });
    const result = await agent.execute(
      { input: 'What is 2 + 3?' },
      { history: [{ role: 'assistant', content: [{ type: 'text', text: 'Earlier answer.' }] }] },
    );
    expect(result).toMatchObject({
      output: 'The sum is 5.',
      finishReason: 'stop',
      iterations: 1,
    });
    const first = promptOf(model, 0);
    expect(first.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    // The system prompt ends the stable prefix, marked as an Anthropic cache breakpoint.
    expect(first[0]).toEqual({ role: 'system', content: 'You add numbers.', providerOptions: CACHE_BREAKPOINT });
    expect(first[3]).toEqual({ role: 'user', content: [{ type: 'text', text: 'What is 2 + 3?' }] });
    const second = promptOf(model, 1);
    expect(second.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'add', output: { type: 'json', value: 5 } }],
    });
    expect(model.calls[0]?.options.tools?.map((tool) => tool.name)).toEqual(['add']);
    expect(result.calls).toEqual([
      expect.objectContaining({ type: 'tool', name: 'add', toolCallId: 'c1', input: { a: 2, b: 3 }, output: 5 }),
    ]);
    expect(result.id).toMatch(/^run_/);
    expect(Date.parse(result.finishedAt)).toBeGreaterThanOrEqual(Date.parse(result.startedAt));
  });

  it('sums usage with cost over every model call', async () => {
    const model = new ScriptedModel(
      [
        { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }], usage: { inputTokens: 1000, outputTokens: 100 } },
        { text: 'Two.', usage: { inputTokens: 2000, outputTokens: 10, cachedInputTokens: 1000 } },
      ],
      { modelId: 'gpt-4o-mini' },
    );
    const result = await new LLMAgent({ name: 'calc', model, tools: [add] }).execute({ input: '1+1' });
    expect(result.usage).toMatchObject({
      inputTokens: 3000,
      outputTokens: 110,
      cachedInputTokens: 1000,
      totalTokens: 3110,
    });
    // gpt-4o-mini: $0.15 input, $0.075 cached, $0.60 output per million.
    expect(result.usage.costUsd).toBeCloseTo((2000 * 0.15 + 1000 * 0.075 + 110 * 0.6) / 1e6, 12);
  });

  it('passes generation parameters, and leaves unset ones to the provider', async () => {
    const model = new ScriptedModel(['ok', 'ok']);
    await new LLMAgent({ name: 'a', model, temperature: 0.2, topP: 0.9, topK: 40, maxOutputTokens: 256 }).execute({
      input: 'x',
    });
    expect(model.calls[0]?.options).toMatchObject({ temperature: 0.2, topP: 0.9, topK: 40, maxOutputTokens: 256 });
    await new LLMAgent({ name: 'b', model }).execute({ input: 'x' });
    const options = model.calls[1]?.options ?? {};
    expect(['temperature', 'topP', 'topK', 'maxOutputTokens'].filter((key) => key in options)).toEqual([]);
  });

  it('keeps the last reasoning as thinking and emits it', async () => {
    const model = new ScriptedModel([
      { reasoning: 'I should add.', toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
      { reasoning: 'Now answer.', text: '3' },
    ]);
    const events: AgentEvent[] = [];
    const result = await new LLMAgent({ name: 'a', model, tools: [add] }).execute(
      { input: 'x' },
      { onEvent: (event) => events.push(event) },
    );
    expect(result.thinking).toBe('Now answer.');
    expect(
      events.filter((event) => event.type === 'thinking').map((event) => event.type === 'thinking' && event.text),
    ).toEqual(['I should add.', 'Now answer.']);
  });

  it('rejects a task without an input string', async () => {
    const agent = new LLMAgent({ name: 'a', model: new ScriptedModel([]) });
    await expect(agent.execute({} as never)).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(() => new LLMAgent({ name: '', model: new ScriptedModel([]) })).toThrow(/needs a "name"/);
    expect(() => new LLMAgent({ name: 'x', model: new ScriptedModel([]), maxIterations: 0 })).toThrow(/maxIterations/);
  });
});

describe('LLMAgent: bad tool calls become results, never crashes', () => {
  it('answers a call to a tool that does not exist', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'c1', name: 'multiply', input: { a: 1 } }] },
      'Sorry, I can only add.',
    ]);
    const result = await new LLMAgent({ name: 'a', model, tools: [add] }).execute({ input: 'x' });
    expect(result).toMatchObject({ finishReason: 'stop', output: 'Sorry, I can only add.' });
    const sent = promptOf(model, 1).at(-1);
    expect(sent).toMatchObject({
      role: 'tool',
      content: [
        {
          output: {
            type: 'error-text',
            value: expect.stringContaining('Unknown tool "multiply". Available tools: add'),
          },
        },
      ],
    });
    expect(result.calls[0]?.error?.code).toBe('tool_not_found');
  });

  it('answers malformed arguments, both invalid JSON and schema failures', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: 'c1', name: 'add', input: '{"a": 1, "b":' },
          { id: 'c2', name: 'add', input: { a: 'one', b: 2 } },
        ],
      },
      'Fixed.',
    ]);
    const result = await new LLMAgent({ name: 'a', model, tools: [add] }).execute({ input: 'x' });
    const [json, schema] = (promptOf(model, 1).at(-1)?.content ?? []) as Array<{ output: { value: string } }>;
    expect(json?.output.value).toMatch(/not valid JSON/);
    expect(schema?.output.value).toMatch(/- a: Invalid input: expected number, received string/);
    expect(result.calls.map((step) => step.error?.code)).toEqual(['tool_invalid_input', 'tool_invalid_input']);
  });

  it('cancels a tool that hangs past its timeout and carries on', async () => {
    const hang = defineTool({
      name: 'hang',
      description: 'hangs',
      input: z.object({}),
      effects: 'read',
      timeoutMs: 40,
      execute: () => new Promise(() => {}),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'hang', input: {} }] }, 'It timed out.']);
    const started = Date.now();
    const result = await new LLMAgent({ name: 'a', model, tools: [hang] }).execute({ input: 'x' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result).toMatchObject({ finishReason: 'stop', output: 'It timed out.' });
    expect(result.calls[0]?.error).toMatchObject({
      code: 'tool_timeout',
      message: expect.stringMatching(/timed out after 40 ms/),
    });
  });
});

describe('LLMAgent: parallel tools', () => {
  it('runs several calls on a pool of at most 10, returning results in call order', async () => {
    let running = 0;
    let peak = 0;
    const slow = defineTool({
      name: 'slow',
      description: 'waits',
      input: z.object({ n: z.number() }),
      effects: 'read',
      execute: async ({ n }) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, (14 - n) * 3));
        running--;
        return `done ${n}`;
      },
    });
    const calls = Array.from({ length: 14 }, (_, n) => ({ id: `c${n}`, name: 'slow', input: { n } }));
    const model = new ScriptedModel([{ toolCalls: calls }, 'All done.']);
    const result = await new LLMAgent({ name: 'a', model, tools: [slow] }).execute({ input: 'x' });
    expect(peak).toBe(10);
    const results = toolMessages(result.messages)[0]?.content.map(
      (part) => part.type === 'tool-result' && part.toolCallId,
    );
    expect(results).toEqual(calls.map((call) => call.id));
    expect(result.calls).toHaveLength(14);
  });

  it('runs a single call inline', async () => {
    let peak = 0;
    const one = defineTool({
      name: 'one',
      description: 'd',
      input: z.object({}),
      effects: 'read',
      execute: () => ++peak,
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'one', input: {} }] }, 'ok']);
    await new LLMAgent({ name: 'a', model, tools: [one] }).execute({ input: 'x' });
    expect(peak).toBe(1);
  });

  it('on abort, resolves calls in flight to error results at once and ends the run as aborted', async () => {
    const controller = new AbortController();
    let started = 0;
    const wait = defineTool({
      name: 'wait',
      description: 'waits forever',
      input: z.object({ n: z.number() }),
      effects: 'read',
      execute: () => {
        if (++started === 3) setTimeout(() => controller.abort(), 5);
        return new Promise(() => {});
      },
    });
    const model = new ScriptedModel([{ toolCalls: [0, 1, 2].map((n) => ({ name: 'wait', input: { n } })) }, 'never']);
    const events: AgentEvent[] = [];
    const begin = Date.now();
    const result = await new LLMAgent({ name: 'a', model, tools: [wait] }).execute(
      { input: 'x' },
      { signal: controller.signal, onEvent: (event) => events.push(event) },
    );
    expect(Date.now() - begin).toBeLessThan(1_000);
    expect(result).toMatchObject({
      finishReason: 'aborted',
      error: { code: 'aborted' },
    });
    const toolResults = events.filter((event) => event.type === 'tool-call-result');
    expect(toolResults.map((event) => event.type === 'tool-call-result' && event.error?.code)).toEqual([
      'aborted',
      'aborted',
      'aborted',
    ]);
    expect(model.calls).toHaveLength(1);
  });
});

describe('LLMAgent: iteration cap', () => {
  it('after 10 iterations asks once more, without tools, for a final answer', async () => {
    const model = new ScriptedModel((_options, index) =>
      index < 10 ? { toolCalls: [{ name: 'add', input: { a: index, b: 1 } }] } : 'Final answer.',
    );
    const result = await new LLMAgent({ name: 'a', model, tools: [add] }).execute({ input: 'loop' });
    expect(model.calls).toHaveLength(11);
    expect(result).toMatchObject({
      finishReason: 'max-iterations',
      iterations: 10,
      output: 'Final answer.',
    });
    const last = model.calls[10]?.options;
    expect(last?.toolChoice).toEqual({ type: 'none' });
    expect(last?.prompt.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: SYNTHESIS_INSTRUCTION }] });
  });

  it('honours a custom cap and drops tool calls from the synthesis answer', async () => {
    const model = new ScriptedModel(() => ({
      text: 'still going',
      toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }],
    }));
    const result = await new LLMAgent({ name: 'a', model, tools: [add], maxIterations: 2 }).execute({ input: 'x' });
    expect(model.calls).toHaveLength(3);
    expect(result).toMatchObject({ finishReason: 'max-iterations', iterations: 2, output: 'still going' });
    expect(result.messages.at(-1)?.content).toEqual([{ type: 'text', text: 'still going' }]);
  });
});

describe('LLMAgent: truncation and attachments', () => {
  it('truncates a result over 100,000 characters in the history only', async () => {
    const big = 'x'.repeat(150_000);
    const dump = defineTool({
      name: 'dump',
      description: 'd',
      input: z.object({}),
      effects: 'read',
      execute: () => big,
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: 'dump', input: {} }] }, 'ok']);
    const events: AgentEvent[] = [];
    const result = await new LLMAgent({ name: 'a', model, tools: [dump] }).execute(
      { input: 'x' },
      { onEvent: (event) => events.push(event) },
    );
    const sent = (promptOf(model, 1).at(-1)?.content[0] as { output: { value: string } }).output.value;
    expect(sent).toHaveLength(100_000 + TRUNCATION_MARKER.length + 1);
    expect(sent.endsWith(`\n${TRUNCATION_MARKER}`)).toBe(true);
    expect(result.calls[0]?.output).toBe(big);
    expect(events.find((event) => event.type === 'tool-call-result')).toMatchObject({ output: big });
  });

  it('caps attachments by count and bytes, with a warning', async () => {
    const shot = defineTool({
      name: 'shot',
      description: 'screenshot',
      input: z.object({}),
      effects: 'read',
      execute: () => 'png',
      toModelOutput: () => ({
        type: 'content',
        value: [
          { type: 'text', text: 'screens' },
          { type: 'file', mediaType: 'image/png', data: { type: 'base64', base64: 'A'.repeat(4000) } },
          { type: 'file', mediaType: 'image/png', data: { type: 'base64', base64: 'B'.repeat(4000) } },
        ],
      }),
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'shot', input: {} },
          { name: 'shot', input: {} },
        ],
      },
      'ok',
    ]);
    const byCount = await new LLMAgent({ name: 'a', model, tools: [shot], maxAttachments: 3 }).execute({ input: 'x' });
    expect(byCount.attachments).toHaveLength(3);
    expect(byCount.warnings).toEqual([expect.stringContaining('1 attachment(s) dropped')]);
    const again = new ScriptedModel([
      {
        toolCalls: [
          { name: 'shot', input: {} },
          { name: 'shot', input: {} },
        ],
      },
      'ok',
    ]);
    const byBytes = await new LLMAgent({ name: 'a', model: again, tools: [shot], maxAttachmentBytes: 7000 }).execute({
      input: 'x',
    });
    expect(byBytes.attachments).toHaveLength(2);
  });
});

describe('LLMAgent: model errors', () => {
  it('retries through the model layer and reports every retry in retryInfo and the events', async () => {
    const model = new ScriptedModel([
      { error: apiError(429, { error: { type: 'rate_limit_error' } }, { 'retry-after-ms': '5' }) },
      'ok',
    ]);
    const events: AgentEvent[] = [];
    const result = await new LLMAgent({ name: 'a', model }).execute(
      { input: 'x' },
      { onEvent: (event) => events.push(event) },
    );
    expect(result.finishReason).toBe('stop');
    expect(result.retryInfo).toMatchObject({
      attempts: 2,
      retries: [expect.objectContaining({ errorClass: 'rate_limit', delayMs: 5 })],
    });
    expect(events.filter((event) => event.type === 'retry')).toHaveLength(1);
  });

  it('ends with the classified error when the model keeps failing', async () => {
    const model = new ScriptedModel([
      { error: apiError(400, { error: { type: 'invalid_request_error', message: 'bad' } }) },
    ]);
    const result = await new LLMAgent({ name: 'a', model }).execute({ input: 'x' });
    expect(result).toMatchObject({ finishReason: 'error', error: { code: 'model_fatal' } });
  });

  it('falls back along a model chain', async () => {
    const primary = new ScriptedModel([{ error: apiError(400) }], { modelId: 'primary' });
    const backup = new ScriptedModel(['from backup'], { modelId: 'backup' });
    const result = await new LLMAgent({ name: 'a', model: [primary, backup] }).execute({ input: 'x' });
    expect(result.output).toBe('from backup');
    expect(result.retryInfo.retries[0]).toMatchObject({ fallbackTo: 'scripted:backup' });
  });
});

describe('LLMAgent: dynamic configuration', () => {
  it('chooses prompt, model and tools per execution; dynamic tools replace static ones; tools see the task', async () => {
    const pro = new ScriptedModel([{ toolCalls: [{ name: 'whoami', input: {} }] }, 'pro answer']);
    const basic = new ScriptedModel(['basic answer']);
    const whoami = defineTool({
      name: 'whoami',
      description: 'd',
      input: z.object({}),
      effects: 'read',
      execute: (_input, context) => `user ${String(context.task?.context?.userId)}`,
    });
    const agent = new LLMAgent({
      name: 'tiered',
      model: basic,
      tools: [add],
      dynamicInstructions: (task) => `You help ${String(task.context?.userId)}.`,
      dynamicModel: (task) => (task.context?.tier === 'pro' ? pro : basic),
      dynamicTools: (task) => (task.context?.tier === 'pro' ? [whoami] : []),
    });
    const proResult = await agent.execute({ input: 'hi', context: { tier: 'pro', userId: 'u7' } });
    expect(proResult.output).toBe('pro answer');
    expect(pro.calls[0]?.options.prompt[0]).toMatchObject({ role: 'system', content: 'You help u7.' });
    expect(pro.calls[0]?.options.tools?.map((tool) => tool.name)).toEqual(['whoami']);
    expect(proResult.calls[0]?.output).toBe('user u7');
    const basicResult = await agent.execute({ input: 'hi', context: { tier: 'free', userId: 'u8' } });
    expect(basicResult.output).toBe('basic answer');
    expect(basic.calls[0]?.options.tools).toBeUndefined();
  });

  it('reports a failing dynamic function as an error result', async () => {
    const agent = new LLMAgent({
      name: 'a',
      model: new ScriptedModel([]),
      dynamicInstructions: () => {
        throw new Error('tenant lookup failed');
      },
    });
    expect(await agent.execute({ input: 'x' })).toMatchObject({
      finishReason: 'error',
      error: { message: 'tenant lookup failed' },
    });
  });
});
