import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import {
  chunkResponses,
  FIXTURES_DIR,
  fixtureFetch,
  fixtureText,
  jsonResponse,
  type RecordedResponse,
  sseResponse,
} from '../../test/support/fixture-fetch.ts';
import type { AssistantMessage, ReasoningPart, ToolCallPart } from '../core/messages.ts';
import { contentToAssistantMessage } from '../core/messages-v4-content.ts';
import { usageFromV4 } from '../core/usage.ts';
import { createModelCaller } from './call-model.ts';
import { resolveModel } from './resolve-model.ts';
import { streamPartsToResult } from './stream-convert.ts';

// Every recorded response is played through the real @ai-sdk provider and agency's model layer (resolveModel and
// the call wrapper), with a fetch that serves the recorded body. See __fixtures__/README.md for each file's origin.

const env = { OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test' };
const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hello' }] }];

type Expected = {
  text?: string | RegExp;
  toolCalls?: Array<{ id: string; name: string; input: unknown }>;
  reasoning?: RegExp;
  signature?: boolean;
  usage?: { inputTokens: number; outputTokens: number; reasoningTokens?: number; cachedInputTokens?: number };
  finish?: string;
};

type Case = {
  file: string;
  spec: string;
  responses: () => RecordedResponse[];
  stream: boolean;
  url: RegExp;
  expect: Expected[] | { errorClass: 'rate_limit' | 'retryable' | 'fatal'; status?: number; providerType: string };
};

const CASES: Case[] = [
  // OpenAI Chat Completions
  {
    file: 'openai-chat/openai-text.json',
    spec: 'openai-chat:gpt-4.1-nano',
    responses: () => [jsonResponse('openai-chat/openai-text.json')],
    stream: false,
    url: /\/chat\/completions$/,
    expect: [
      {
        text: /^\*\*Holiday Name:\*\* Galaxy Day/,
        usage: { inputTokens: 16, outputTokens: 363, reasoningTokens: 0 },
        finish: 'stop',
      },
    ],
  },
  {
    file: 'openai-chat/test_run_stream_sync_streams_real_model.interaction-0.response.sse',
    spec: 'openai-chat:gpt-4o-mini',
    responses: () => [sseResponse('openai-chat/test_run_stream_sync_streams_real_model.interaction-0.response.sse')],
    stream: true,
    url: /\/chat\/completions$/,
    expect: [
      {
        toolCalls: [{ id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj', name: 'get_capital', input: { country: 'UK' } }],
        usage: { inputTokens: 53, outputTokens: 15 },
        finish: 'tool-calls',
      },
    ],
  },
  {
    file: 'openai-chat/test_run_stream_sync_streams_real_model.interaction-1.response.sse',
    spec: 'openai-chat:gpt-4o-mini',
    responses: () => [sseResponse('openai-chat/test_run_stream_sync_streams_real_model.interaction-1.response.sse')],
    stream: true,
    url: /\/chat\/completions$/,
    expect: [{ text: 'The capital of the UK is London.', usage: { inputTokens: 78, outputTokens: 9 }, finish: 'stop' }],
  },
  {
    file: 'openai-chat/test_prefect_agent_with_hitl_tool.interaction-0.response.json',
    spec: 'openai-chat:gpt-4o',
    responses: () => [jsonResponse('openai-chat/test_prefect_agent_with_hitl_tool.interaction-0.response.json')],
    stream: false,
    url: /\/chat\/completions$/,
    expect: [
      {
        toolCalls: [
          { id: 'call_HMKxpFuWMpNPfuK5352En5En', name: 'delete_file', input: { path: '.env' } },
          { id: 'call_CAES42XVgl0EvrUmnIoHkMSS', name: 'create_file', input: { path: 'test.txt' } },
        ],
        usage: { inputTokens: 71, outputTokens: 46 },
        finish: 'tool-calls',
      },
    ],
  },
  {
    file: 'openai-chat/test_complex_agent_run_in_flow.interaction-1.response.sse',
    spec: 'openai-chat:gpt-4o',
    responses: () => [sseResponse('openai-chat/test_complex_agent_run_in_flow.interaction-1.response.sse')],
    stream: true,
    url: /\/chat\/completions$/,
    expect: [
      {
        // Call 0's arguments arrive split mid-token: {"ci / ty": / "Mexic / o Ci / ty"}
        toolCalls: [
          { id: 'call_NS4iQj14cDFwc0BnrKqDHavt', name: 'get_weather', input: { city: 'Mexico City' } },
          { id: 'call_SkGkkGDvHQEEk0CGbnAh2AQw', name: 'get_product_name', input: {} },
        ],
        usage: { inputTokens: 417, outputTokens: 44 },
        finish: 'tool-calls',
      },
    ],
  },
  {
    file: 'openai-chat/test_openai_o1_mini_system_role-system.interaction-0.response.json',
    spec: 'openai-chat:o1-mini',
    responses: () => [
      jsonResponse('openai-chat/test_openai_o1_mini_system_role-system.interaction-0.response.json', 400),
    ],
    stream: false,
    url: /\/chat\/completions$/,
    expect: { errorClass: 'fatal', status: 400, providerType: 'invalid_request_error' },
  },
  {
    file: 'openai-chat/azure-model-router.1.chunks.txt',
    spec: 'openai-chat:gpt-5-nano',
    responses: () => chunkResponses('openai-chat/azure-model-router.1.chunks.txt', { done: true }),
    stream: true,
    url: /\/chat\/completions$/,
    expect: [
      {
        text: 'Capital of Denmark.',
        usage: { inputTokens: 15, outputTokens: 78, reasoningTokens: 64 },
        finish: 'stop',
      },
    ],
  },
  // OpenAI Responses
  {
    file: 'openai-responses/openai-reasoning-encrypted-content.1.json',
    spec: 'openai:gpt-5-mini',
    responses: () => [jsonResponse('openai-responses/openai-reasoning-encrypted-content.1.json')],
    stream: false,
    url: /\/responses$/,
    expect: [
      {
        reasoning: /^\*\*Reporting final result\*\*/,
        text: '12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570',
        usage: { inputTokens: 865, outputTokens: 163, reasoningTokens: 128 },
        finish: 'stop',
      },
    ],
  },
  {
    file: 'openai-responses/openai-reasoning-encrypted-content.1.chunks.txt',
    spec: 'openai:gpt-5-mini',
    responses: () => chunkResponses('openai-responses/openai-reasoning-encrypted-content.1.chunks.txt'),
    stream: true,
    url: /\/responses$/,
    expect: [
      {
        reasoning: /^\*\*Calculating step-by-step using calculator\*\*/,
        toolCalls: [{ id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn', name: 'calculator', input: { a: 12, b: 7, op: 'add' } }],
        usage: { inputTokens: 134, outputTokens: 28 },
        finish: 'tool-calls',
      },
      {
        toolCalls: [
          { id: 'call_Q6pW65MUgW9vF59BmItYGos3', name: 'calculator', input: { a: 19, b: 3, op: 'multiply' } },
        ],
        usage: { inputTokens: 221, outputTokens: 26 },
        finish: 'tool-calls',
      },
      {
        toolCalls: [
          { id: 'call_Zl5vIMnD7dVAjgU6FkhmiCZh', name: 'calculator', input: { a: 57, b: 10, op: 'multiply' } },
        ],
        usage: { inputTokens: 260, outputTokens: 26 },
        finish: 'tool-calls',
      },
      { text: 'The final result is **570**.', usage: { inputTokens: 299, outputTokens: 12 }, finish: 'stop' },
    ],
  },
  {
    file: 'openai-responses/azure-tool-call.1.json',
    spec: 'openai:gpt-5.1',
    responses: () => [jsonResponse('openai-responses/azure-tool-call.1.json')],
    stream: false,
    url: /\/responses$/,
    expect: [
      {
        // The tool result must reference call_id, not the output item's fc_ id.
        toolCalls: [{ id: 'call_YunNGbIwdVJ2i0y0Mybva4Pw', name: 'weather', input: { location: 'San Francisco' } }],
        usage: { inputTokens: 45, outputTokens: 24 },
        finish: 'tool-calls',
      },
    ],
  },
  {
    file: 'openai-responses/test_openai_responses_stream.interaction-0.response.sse',
    spec: 'openai:gpt-4o',
    responses: () => [sseResponse('openai-responses/test_openai_responses_stream.interaction-0.response.sse')],
    stream: true,
    url: /\/responses$/,
    expect: [
      {
        toolCalls: [{ id: 'call_kL0PCQV7M2WMoVX8V8OtYSAL', name: 'get_capital', input: { country: 'France' } }],
        usage: { inputTokens: 255, outputTokens: 16 },
        finish: 'tool-calls',
      },
    ],
  },
  {
    file: 'openai-responses/test_openai_responses_stream.interaction-1.response.sse',
    spec: 'openai:gpt-4o',
    responses: () => [sseResponse('openai-responses/test_openai_responses_stream.interaction-1.response.sse')],
    stream: true,
    url: /\/responses$/,
    expect: [{ text: 'The capital of France is Paris.', usage: { inputTokens: 278, outputTokens: 9 }, finish: 'stop' }],
  },
  {
    file: 'openai-responses/openai-error.1.json',
    spec: 'openai:gpt-5-nano',
    // OpenAI sends quota exhaustion as HTTP 429; its error type makes it fatal, not a rate limit.
    responses: () => [jsonResponse('openai-responses/openai-error.1.json', 429)],
    stream: false,
    url: /\/responses$/,
    expect: { errorClass: 'fatal', status: 429, providerType: 'insufficient_quota' },
  },
  {
    file: 'openai-responses/openai-error.1.chunks.txt',
    spec: 'openai:gpt-5-nano',
    responses: () => chunkResponses('openai-responses/openai-error.1.chunks.txt'),
    stream: true,
    url: /\/responses$/,
    expect: { errorClass: 'fatal', providerType: 'insufficient_quota' },
  },
  // Anthropic Messages
  {
    file: 'anthropic/anthropic-text.json',
    spec: 'anthropic:claude-sonnet-4-5',
    responses: () => [jsonResponse('anthropic/anthropic-text.json')],
    stream: false,
    url: /\/messages$/,
    expect: [
      {
        text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
        usage: { inputTokens: 12, outputTokens: 29, cachedInputTokens: 0 },
        finish: 'stop',
      },
    ],
  },
  {
    file: 'anthropic/anthropic-text.chunks.txt',
    spec: 'anthropic:claude-sonnet-4-5',
    responses: () => chunkResponses('anthropic/anthropic-text.chunks.txt'),
    stream: true,
    url: /\/messages$/,
    expect: [
      {
        text: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
        usage: { inputTokens: 12, outputTokens: 30 },
        finish: 'stop',
      },
    ],
  },
  {
    file: 'anthropic/anthropic-json-tool.1.json',
    spec: 'anthropic:claude-haiku-4-5',
    responses: () => [jsonResponse('anthropic/anthropic-json-tool.1.json')],
    stream: false,
    url: /\/messages$/,
    expect: [
      {
        toolCalls: [
          {
            id: 'toolu_01Q9ExVZnzZj7E2QQYHYtNUa',
            name: 'json',
            input: {
              elements: [
                { location: 'San Francisco', temperature: -5, condition: 'snowy' },
                { location: 'London', temperature: 0, condition: 'snowy' },
                { location: 'Paris', temperature: 23, condition: 'cloudy' },
                { location: 'Berlin', temperature: -9, condition: 'snowy' },
              ],
            },
          },
        ],
        usage: { inputTokens: 1151, outputTokens: 87 },
        finish: 'tool-calls',
      },
    ],
  },
  {
    file: 'anthropic/anthropic-json-tool.1.chunks.txt',
    spec: 'anthropic:claude-haiku-4-5',
    responses: () => chunkResponses('anthropic/anthropic-json-tool.1.chunks.txt'),
    stream: true,
    url: /\/messages$/,
    expect: [
      {
        toolCalls: [
          {
            id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA',
            name: 'json',
            input: { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] },
          },
        ],
        usage: { inputTokens: 849, outputTokens: 47 },
        finish: 'tool-calls',
      },
    ],
  },
  {
    file: 'anthropic/tool_use_response.txt',
    spec: 'anthropic:claude-sonnet-4-0',
    responses: () => [sseResponse('anthropic/tool_use_response.txt')],
    stream: true,
    url: /\/messages$/,
    expect: [
      {
        text: "I'll check the current weather in Paris for you.",
        toolCalls: [{ id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn', name: 'get_weather', input: { location: 'Paris' } }],
        usage: { inputTokens: 377, outputTokens: 65 },
        finish: 'tool-calls',
      },
    ],
  },
  {
    file: 'anthropic/anthropic-clear-thinking.1.json',
    spec: 'anthropic:claude-sonnet-4-5',
    responses: () => [jsonResponse('anthropic/anthropic-clear-thinking.1.json')],
    stream: false,
    url: /\/messages$/,
    expect: [
      {
        reasoning: /^925 divided by 5 = 185$/,
        signature: true,
        text: '925 ÷ 5 = 185',
        usage: { inputTokens: 69, outputTokens: 33 },
        finish: 'stop',
      },
    ],
  },
  {
    file: 'anthropic/anthropic-clear-thinking.1.chunks.txt',
    spec: 'anthropic:claude-sonnet-4-5',
    responses: () => chunkResponses('anthropic/anthropic-clear-thinking.1.chunks.txt'),
    stream: true,
    url: /\/messages$/,
    expect: [
      {
        reasoning: /^The previous result was 925\. Now I need to divide that by 5\.\n\n925 ÷ 5 = 185$/,
        signature: true,
        text: '925 ÷ 5 = 185',
        usage: { inputTokens: 69, outputTokens: 53 },
        finish: 'stop',
      },
    ],
  },
  {
    file: 'anthropic/test_multiple_parallel_tool_calls.interaction-0.response.json',
    spec: 'anthropic:claude-haiku-4-5',
    responses: () => [jsonResponse('anthropic/test_multiple_parallel_tool_calls.interaction-0.response.json')],
    stream: false,
    url: /\/messages$/,
    expect: [
      {
        text: /^I'll help you find out who is the youngest/,
        toolCalls: [
          { id: 'toolu_0167cfEnoQaPviGdVXA95zcu', name: 'retrieve_entity_info', input: { name: 'Alice' } },
          { id: 'toolu_01EEe2V5HD1Ac4rKiUR4HD2T', name: 'retrieve_entity_info', input: { name: 'Bob' } },
          { id: 'toolu_01XFyAjstT3966qvRynZyVPo', name: 'retrieve_entity_info', input: { name: 'Charlie' } },
          { id: 'toolu_013mnQZbgtK2oe3Mo3XKJsx3', name: 'retrieve_entity_info', input: { name: 'Daisy' } },
        ],
        usage: { inputTokens: 423, outputTokens: 202 },
        finish: 'tool-calls',
      },
    ],
  },
  {
    file: 'anthropic/test_anthropic_explicit_effort_xhigh_unsupported_model_errors.interaction-0.response.json',
    spec: 'anthropic:claude-opus-4-6',
    responses: () => [
      jsonResponse(
        'anthropic/test_anthropic_explicit_effort_xhigh_unsupported_model_errors.interaction-0.response.json',
        400,
      ),
    ],
    stream: false,
    url: /\/messages$/,
    expect: { errorClass: 'fatal', status: 400, providerType: 'invalid_request_error' },
  },
  // OpenAI-compatible (DeepSeek)
  {
    file: 'openai-compatible/deepseek-tool-call.chunks.txt',
    spec: 'openai-compatible:http://127.0.0.1:8000/v1#deepseek-reasoner',
    responses: () => chunkResponses('openai-compatible/deepseek-tool-call.chunks.txt', { done: true }),
    stream: true,
    url: /^http:\/\/127\.0\.0\.1:8000\/v1\/chat\/completions$/,
    expect: [
      {
        reasoning: /^The user is asking for the weather in San Francisco\./,
        toolCalls: [{ id: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', name: 'weather', input: { location: 'San Francisco' } }],
        usage: { inputTokens: 339, outputTokens: 83, reasoningTokens: 39, cachedInputTokens: 320 },
        finish: 'tool-calls',
      },
    ],
  },
];

async function play(testCase: Case) {
  const fetch = fixtureFetch(testCase.responses());
  const caller = createModelCaller(resolveModel(testCase.spec, { env, fetch }), { maxRetries: 0 });
  const results: LanguageModelV4GenerateResult[] = [];
  const count = Array.isArray(testCase.expect) ? testCase.expect.length : 1;
  for (let i = 0; i < count; i++) {
    if (!testCase.stream) {
      results.push((await caller.generate({ prompt })).result);
      continue;
    }
    const { stream } = await caller.stream({ prompt });
    const parts: LanguageModelV4StreamPart[] = [];
    for await (const part of stream) parts.push(part);
    results.push(streamPartsToResult(parts));
  }
  return { results, fetch };
}

function check(result: LanguageModelV4GenerateResult, expected: Expected, modelId: string) {
  const message: AssistantMessage = contentToAssistantMessage(result.content);
  const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  if (expected.text !== undefined) expect(text).toMatch(expected.text);
  const calls = message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
  expect(calls.map((call) => ({ id: call.toolCallId, name: call.toolName, input: call.input }))).toEqual(
    expected.toolCalls ?? [],
  );
  expect(calls.every((call) => call.inputError === undefined)).toBe(true);
  const reasoning = message.content.filter((part): part is ReasoningPart => part.type === 'reasoning');
  if (expected.reasoning) {
    expect(reasoning.map((part) => part.text).join('')).toMatch(expected.reasoning);
  } else {
    expect(reasoning.map((part) => part.text).join('')).toBe('');
  }
  if (expected.signature) expect(reasoning[0]?.providerOptions?.anthropic?.signature).toMatch(/^E[A-Za-z0-9+/]{20,}/);
  if (expected.usage) expect(usageFromV4(result.usage, modelId)).toMatchObject(expected.usage);
  if (expected.finish) expect(result.finishReason.unified).toBe(expected.finish);
}

describe('recorded provider traffic through the real @ai-sdk providers', () => {
  it.each(CASES.map((testCase) => [testCase.file, testCase] as const))('%s', async (_file, testCase) => {
    if (Array.isArray(testCase.expect)) {
      const { results, fetch } = await play(testCase);
      testCase.expect.forEach((expected, i) => {
        check(results[i] as LanguageModelV4GenerateResult, expected, results[i]?.response?.modelId ?? testCase.spec);
      });
      expect(fetch.requests.every((request) => testCase.url.test(request.url))).toBe(true);
      return;
    }
    const { errorClass, status, providerType } = testCase.expect;
    const error = await play(testCase).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({
      code:
        errorClass === 'fatal' ? 'model_fatal' : errorClass === 'rate_limit' ? 'model_rate_limit' : 'model_retryable',
      retryable: errorClass !== 'fatal',
      details: expect.objectContaining({ class: errorClass, providerType, ...(status ? { status } : {}) }),
    });
  });

  describe('anthropic/ToolRunner.json (10 recorded exchanges)', () => {
    type Exchange = {
      status: number;
      response: { content: Array<Record<string, unknown>>; stop_reason: string; usage: Record<string, number> };
    };
    const exchanges = JSON.parse(fixtureText('anthropic/ToolRunner.json')) as Exchange[];

    it('holds 10 exchanges', () => expect(exchanges).toHaveLength(10));

    it.each(exchanges.map((exchange, index) => [index, exchange] as const))('exchange %i', async (_index, exchange) => {
      const fetch = fixtureFetch([
        { status: exchange.status, body: JSON.stringify(exchange.response), contentType: 'application/json' },
      ]);
      const caller = createModelCaller(resolveModel('anthropic:claude-sonnet-4-5', { env, fetch }), { maxRetries: 0 });
      const { result } = await caller.generate({ prompt });
      const message = contentToAssistantMessage(result.content);
      const expectedCalls = exchange.response.content
        .filter((block) => block.type === 'tool_use')
        .map((block) => ({ id: block.id, name: block.name, input: block.input }));
      const calls = message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
      expect(calls.map((call) => ({ id: call.toolCallId, name: call.toolName, input: call.input }))).toEqual(
        expectedCalls,
      );
      const expectedText = exchange.response.content
        .flatMap((block) => (block.type === 'text' ? [block.text] : []))
        .join('');
      expect(message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')).toBe(expectedText);
      expect(result.finishReason.unified).toBe(exchange.response.stop_reason === 'tool_use' ? 'tool-calls' : 'stop');
      expect(usageFromV4(result.usage, 'claude-sonnet-4-5')).toMatchObject({
        inputTokens: exchange.response.usage.input_tokens,
        outputTokens: exchange.response.usage.output_tokens,
      });
    });
  });

  it('covers every recorded fixture file', () => {
    const files = listFiles(FIXTURES_DIR).filter((file) => !file.startsWith('LICENSES/') && file !== 'README.md');
    const covered = new Set([...CASES.map((testCase) => testCase.file), 'anthropic/ToolRunner.json']);
    expect(files.filter((file) => !covered.has(file))).toEqual([]);
    expect(covered.size).toBe(25);
  });
});

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [relative(FIXTURES_DIR, join(dir, entry.name))],
  );
}
