import type { LanguageModelV4 } from '@ai-sdk/provider';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { installTelemetry, parentOf, spanNamed, spanNames, type TestTelemetry } from '../../test/support/telemetry.ts';
import { LLMAgent } from '../agent/llm-agent.ts';
import { createRedactor } from '../core/redact.ts';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { defineTool, type Tool } from '../tools/define-tool.ts';
import { configureTelemetry } from './telemetry.ts';

let telemetry: TestTelemetry;
beforeAll(() => {
  telemetry = installTelemetry();
});
afterEach(() => {
  telemetry.reset();
  configureTelemetry({});
});
afterAll(() => telemetry.uninstall());

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  effects: 'read',
  execute: ({ a, b }) => a + b,
});

// The provider's response metadata, which ScriptedModel does not send.
function withResponse(model: ScriptedModel, id: string): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: {},
    doGenerate: async (options) => ({
      ...(await model.doGenerate(options)),
      response: { id, modelId: `${model.modelId}-2024-07-18` },
    }),
    doStream: (options) => model.doStream(options),
  };
}

function calcAgent(model: LanguageModelV4, tools: Tool[] = [add]) {
  return new LLMAgent({ name: 'calc', model, tools, temperature: 0.2, maxOutputTokens: 300 });
}

describe('spans of an LLMAgent run (GenAI conventions)', () => {
  it('an invoke_agent span holds a chat span per model call and an execute_tool span per tool call', async () => {
    const model = new ScriptedModel(
      [
        { toolCalls: [{ id: 'c1', name: 'add', input: { a: 2, b: 3 } }], usage: { inputTokens: 40, outputTokens: 9 } },
        { text: 'The sum is 5.', usage: { inputTokens: 60, outputTokens: 6 } },
      ],
      { provider: 'openai.chat', modelId: 'gpt-4o-mini' },
    );
    const result = await calcAgent(withResponse(model, 'chatcmpl-1')).execute({ input: 'What is 2 + 3?' });
    expect(result.finishReason).toBe('stop');

    const spans = telemetry.spans();
    expect(spans.map((span) => span.name)).toEqual([
      'chat gpt-4o-mini',
      'execute_tool add',
      'chat gpt-4o-mini',
      'invoke_agent calc',
    ]);
    const agent = spanNamed(spans, 'invoke_agent calc');
    expect(agent.kind).toBe(SpanKind.INTERNAL);
    expect(agent.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'calc',
      'gen_ai.agent.id': 'calc',
      'agency.run.id': result.id,
      'agency.finish_reason': 'stop',
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 15,
    });
    const [firstChat] = spans;
    expect(firstChat?.kind).toBe(SpanKind.CLIENT);
    expect(firstChat?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 300,
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.response.id': 'chatcmpl-1',
      'gen_ai.response.finish_reasons': ['tool-calls'],
      'gen_ai.usage.input_tokens': 40,
      'gen_ai.usage.output_tokens': 9,
    });
    const tool = spanNamed(spans, 'execute_tool add');
    expect(tool.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
    });
    for (const span of spans.slice(0, 3)) expect(parentOf(spans, span)).toBe(agent);
    expect(agent.parentSpanContext).toBeUndefined();
    // Content is not recorded unless asked for.
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain('2 + 3');
  });

  it('a sub-agent run started by a tool nests under that tool call, through the active context', async () => {
    const inner = new LLMAgent({ name: 'adder', model: new ScriptedModel(['5']) });
    const delegate = defineTool({
      name: 'ask_adder',
      description: 'Asks the adder agent',
      input: z.object({ question: z.string() }),
      effects: 'read',
      execute: async ({ question }) => (await inner.execute({ input: question })).output,
    });
    const outer = new ScriptedModel([
      { toolCalls: [{ id: 'd1', name: 'ask_adder', input: { question: '2 + 3?' } }] },
      'The adder says 5.',
    ]);
    await new LLMAgent({ name: 'router', model: outer, tools: [delegate] }).execute({ input: 'Add 2 and 3' });

    const spans = telemetry.spans();
    const subAgent = spanNamed(spans, 'invoke_agent adder');
    const toolCall = spanNamed(spans, 'execute_tool ask_adder');
    expect(parentOf(spans, subAgent)).toBe(toolCall);
    expect(parentOf(spans, toolCall)).toBe(spanNamed(spans, 'invoke_agent router'));
    const innerChat = spans.find((span) => span.name === 'chat scripted-model' && parentOf(spans, span) === subAgent);
    expect(innerChat, spanNames(spans)).toBeDefined();
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
  });

  it('errors set the span status and error.type: a failing tool, a failing model call, the run that ended', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'Always fails',
      input: z.object({}),
      effects: 'read',
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'b1', name: 'broken', input: {} }] },
      { error: Object.assign(new Error('bad request'), { statusCode: 400 }) },
    ]);
    const result = await calcAgent(model, [broken]).execute({ input: 'go' });
    expect(result.finishReason).toBe('error');

    const spans = telemetry.spans();
    const tool = spanNamed(spans, 'execute_tool broken');
    expect(tool.status.code).toBe(SpanStatusCode.ERROR);
    expect(tool.attributes['error.type']).toBe('tool_failed');
    const chats = spans.filter((span) => span.name === 'chat scripted-model');
    expect(chats.map((span) => span.status.code)).toEqual([SpanStatusCode.UNSET, SpanStatusCode.ERROR]);
    expect(chats[1]?.attributes['error.type']).toBe(result.error?.code);
    const agent = spanNamed(spans, 'invoke_agent calc');
    expect(agent.status).toEqual({ code: SpanStatusCode.ERROR, message: result.error?.message });
    expect(agent.attributes['error.type']).toBe(result.error?.code);
    expect(agent.attributes['agency.finish_reason']).toBe('error');
  });

  it('a streamed call keeps its chat span open until the stream ends, then records its usage', async () => {
    const model = new ScriptedModel([{ text: 'Streamed answer.', usage: { inputTokens: 12, outputTokens: 3 } }]);
    const stream = calcAgent(model).stream({ input: 'hello' });
    const events: string[] = [];
    for await (const event of stream) events.push(event.type);
    expect(events).toContain('text-delta');
    await stream.result;
    const chat = spanNamed(telemetry.spans(), 'chat scripted-model');
    expect(chat.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(parentOf(telemetry.spans(), chat)?.name).toBe('invoke_agent calc');
  });
});

describe('streamed calls that fail or stop', () => {
  it('a stream that fails after it started marks its chat span with the error', async () => {
    const failure = Object.assign(new Error('connection reset'), { code: 'ECONNRESET' });
    const model = new ScriptedModel([{ text: 'partial', streamError: failure }]);
    const stream = calcAgent(model).stream({ input: 'hello' });
    for await (const _event of stream) void _event;
    const result = await stream.result;
    expect(result.finishReason).toBe('error');
    const chat = spanNamed(telemetry.spans(), 'chat scripted-model');
    expect(chat.status.code).toBe(SpanStatusCode.ERROR);
    expect(chat.attributes['error.type']).toBe('ECONNRESET');
    expect(chat.status.message).toBe('connection reset');
  });

  it('an aborted streamed run ends its chat span, marked aborted', async () => {
    const controller = new AbortController();
    // Aborted once the model call is under way, so the abort always lands inside it.
    const model = new ScriptedModel([
      () => {
        queueMicrotask(() => controller.abort());
        return { text: 'slow answer', delayMs: 5_000 };
      },
    ]);
    const stream = calcAgent(model).stream({ input: 'hello' }, { signal: controller.signal });
    for await (const _event of stream) void _event;
    expect((await stream.result).finishReason).toBe('aborted');
    const spans = telemetry.spans();
    const chat = spanNamed(spans, 'chat scripted-model');
    expect(chat.ended).toBe(true);
    expect(chat.attributes['error.type']).toBe('aborted');
    expect(spanNamed(spans, 'invoke_agent calc').attributes['agency.finish_reason']).toBe('aborted');
  });
});

describe('content on spans', () => {
  const secret = 'sk-live-0123456789abcdefSECRET';

  it('with captureContent, prompts, completions, tool arguments and results are recorded, redacted', async () => {
    const redactor = createRedactor();
    redactor.register(secret);
    configureTelemetry({ captureContent: true, redactor });
    const echo = defineTool({
      name: 'echo',
      description: 'Echoes',
      input: z.object({ text: z.string() }),
      effects: 'read',
      execute: ({ text }) => `echo: ${text}`,
    });
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'e1', name: 'echo', input: { text: `key ${secret}` } }] },
      `Done with ${secret}.`,
    ]);
    await new LLMAgent({ name: 'echoer', model, tools: [echo], instructions: 'Be terse.' }).execute({
      input: `Use the key ${secret}`,
    });
    const spans = telemetry.spans();
    const [first, , last] = spans;
    const input = JSON.parse(String(first?.attributes['gen_ai.input.messages']));
    expect(input).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Use the key [REDACTED:openai]' }] }]);
    expect(JSON.parse(String(first?.attributes['gen_ai.system_instructions']))).toEqual([
      { type: 'text', content: 'Be terse.' },
    ]);
    expect(JSON.parse(String(first?.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'e1', name: 'echo', arguments: { text: 'key [REDACTED:openai]' } }],
        finish_reason: 'tool-calls',
      },
    ]);
    const tool = spanNamed(spans, 'execute_tool echo');
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.arguments']))).toEqual({
      text: 'key [REDACTED:openai]',
    });
    expect(JSON.parse(String(tool.attributes['gen_ai.tool.call.result']))).toBe('echo: key [REDACTED:openai]');
    expect(String(last?.attributes['gen_ai.output.messages'])).toContain('Done with [REDACTED:openai].');
    const everything = JSON.stringify(spans.map((span) => [span.attributes, span.status]));
    for (let start = 0; start + 10 <= secret.length; start++)
      expect(everything).not.toContain(secret.slice(start, start + 10));
  });

  it('the environment variable turns content on; anything but "true" leaves it off', async () => {
    const run = () => new LLMAgent({ name: 'plain', model: new ScriptedModel(['hi']) }).execute({ input: 'hello' });
    const before = process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
    try {
      for (const [value, recorded] of [
        ['true', true],
        ['TRUE', true],
        ['1', false],
        ['yes', false],
        ['', false],
      ] as const) {
        process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = value;
        telemetry.reset();
        await run();
        const chat = spanNamed(telemetry.spans(), 'chat scripted-model');
        expect('gen_ai.input.messages' in chat.attributes, `value "${value}"`).toBe(recorded);
      }
      configureTelemetry({ captureContent: false });
      process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = 'true';
      telemetry.reset();
      await run();
      expect(spanNamed(telemetry.spans(), 'chat scripted-model').attributes).not.toHaveProperty(
        'gen_ai.input.messages',
      );
    } finally {
      if (before === undefined) delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
      else process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = before;
    }
  });

  it('an error message with a secret is redacted in the span status', async () => {
    const redactor = createRedactor();
    redactor.register(secret);
    configureTelemetry({ redactor });
    const leaky = defineTool({
      name: 'leaky',
      description: 'Fails loudly',
      input: z.object({}),
      effects: 'read',
      execute: () => {
        throw new Error(`auth failed for ${secret}`);
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ id: 'l1', name: 'leaky', input: {} }] }, 'gave up']);
    await new LLMAgent({ name: 'leaker', model, tools: [leaky] }).execute({ input: 'go' });
    const tool = spanNamed(telemetry.spans(), 'execute_tool leaky');
    expect(tool.status.message).toContain('[REDACTED:openai]');
    expect(tool.status.message).not.toContain(secret.slice(0, 10));
  });
});
