import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { chunkResponses, jsonResponse, type RecordedResponse, sseResponse } from '../../test/support/fixture-fetch.ts';
import {
  eventBytesThrough,
  type Fault,
  type FaultServer,
  firstEventBytes,
  startFaultServer,
} from '../../test/support/fault-server.ts';
import { AgencyError } from '../core/errors.ts';
import { createModelCaller, type RetryEvent } from './call-model.ts';
import { toModelError } from './classify-error.ts';
import { resolveModel } from './resolve-model.ts';

// Recorded responses, played by a real HTTP server that breaks them, through the real @ai-sdk providers. A connection
// cut (or a body closed early) is a network fault: it is retried with backoff while the caller has seen nothing, and
// fails as retryable, without a retry, once a stream has delivered content.

type Provider = {
  name: string;
  spec: (url: string) => string;
  json: () => RecordedResponse;
  sse: () => RecordedResponse;
  /** Matches the first SSE event that carries text. */
  content: RegExp;
};

const PROVIDERS: Provider[] = [
  {
    name: '@ai-sdk/openai (Responses API)',
    spec: () => 'openai:gpt-4o',
    json: () => jsonResponse('openai-responses/openai-reasoning-encrypted-content.1.json'),
    sse: () => sseResponse('openai-responses/test_openai_responses_stream.interaction-1.response.sse'),
    content: /response\.output_text\.delta/,
  },
  {
    name: '@ai-sdk/openai (Chat Completions)',
    spec: () => 'openai-chat:gpt-4o-mini',
    json: () => jsonResponse('openai-chat/openai-text.json'),
    sse: () => sseResponse('openai-chat/test_run_stream_sync_streams_real_model.interaction-1.response.sse'),
    content: /"content":"[^"]/,
  },
  {
    name: '@ai-sdk/anthropic',
    spec: () => 'anthropic:claude-sonnet-4-5',
    json: () => jsonResponse('anthropic/anthropic-text.json'),
    sse: () => chunkResponses('anthropic/anthropic-text.chunks.txt')[0] as RecordedResponse,
    content: /"text_delta"/,
  },
  {
    name: '@ai-sdk/openai-compatible',
    spec: (url) => `openai-compatible:${url}#gpt-4o-mini`,
    json: () => jsonResponse('openai-chat/openai-text.json'),
    sse: () => sseResponse('openai-chat/test_run_stream_sync_streams_real_model.interaction-1.response.sse'),
    content: /"content":"[^"]/,
  },
];

const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hello' }] }];
let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function callerFor(provider: Provider, script: Fault[], timeoutMs = 10_000) {
  server = await startFaultServer(script);
  const env = { OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test' };
  const model = resolveModel(provider.spec(server.url), {
    env: { ...env, OPENAI_BASE_URL: server.url, ANTHROPIC_BASE_URL: server.url },
  });
  const waits: number[] = [];
  const retries: RetryEvent[] = [];
  const caller = createModelCaller(model, {
    timeoutMs,
    initialDelayMs: 100,
    random: () => 0.5,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  return { model, caller, waits, retries, onRetry: (event: RetryEvent) => retries.push(event) };
}

async function drain(stream: ReadableStream<LanguageModelV4StreamPart>): Promise<LanguageModelV4StreamPart[]> {
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const textOf = (parts: LanguageModelV4StreamPart[]) =>
  parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');

describe.each(PROVIDERS)('a connection cut is a network fault: $name', (provider) => {
  const json = provider.json();
  const sse = provider.sse();

  it.each([
    ['cut right after the headers', { kind: 'cut', response: json, bytes: 0 }],
    ['cut half-way through the body', { kind: 'cut', response: json, bytes: Math.floor(json.body.length / 2) }],
    ['closed half-way through the body', { kind: 'close', response: json, bytes: Math.floor(json.body.length / 2) }],
  ] as const)('non-streaming, %s: retried with backoff, then answered', async (_name, fault) => {
    const control = await callerFor(provider, [{ kind: 'ok', response: json }]);
    const expected = (await control.caller.generate({ prompt })).result.content;
    await server?.close();

    const { caller, waits, retries, onRetry } = await callerFor(provider, [fault, { kind: 'ok', response: json }]);
    const outcome = await caller.generate({ prompt }, { onRetry });
    expect(outcome.result.content).toEqual(expected);
    expect(outcome.attempts).toBe(2);
    expect(server?.requests()).toBe(2);
    expect(retries).toEqual([expect.objectContaining({ errorClass: 'retryable', code: 'model_retryable' })]);
    expect(waits).toEqual([75]);
  });

  it.each([
    ['cut right after the headers', { kind: 'cut', response: sse, bytes: 0 }],
    ['cut after the first event', { kind: 'cut', response: sse, bytes: firstEventBytes(sse.body) }],
    ['closed right after the headers', { kind: 'close', response: sse, bytes: 0 }],
    ['closed after the first event', { kind: 'close', response: sse, bytes: firstEventBytes(sse.body) }],
  ] as const)('streaming, %s, before any content: retried invisibly', async (_name, fault) => {
    const control = await callerFor(provider, [{ kind: 'ok', response: sse }]);
    const expected = textOf(await drain((await control.caller.stream({ prompt })).stream));
    await server?.close();

    const { caller, waits, retries, onRetry } = await callerFor(provider, [fault, { kind: 'ok', response: sse }]);
    const outcome = await caller.stream({ prompt }, { onRetry });
    const parts = await drain(outcome.stream);
    expect(expected.length).toBeGreaterThan(0);
    expect(textOf(parts)).toBe(expected);
    expect(parts.at(-1)).toMatchObject({ type: 'finish' });
    expect(outcome.attempts).toBe(2);
    expect(server?.requests()).toBe(2);
    expect(retries).toEqual([expect.objectContaining({ errorClass: 'retryable' })]);
    expect(waits).toEqual([75]);
  });

  it.each([
    ['cut', 'cut'],
    ['closed', 'close'],
  ] as const)('streaming, %s after content was delivered: fails as retryable, without a retry', async (_n, kind) => {
    const bytes = eventBytesThrough(sse.body, provider.content);
    const { caller, model, onRetry, retries } = await callerFor(provider, [
      { kind, response: sse, bytes },
      { kind: 'ok', response: sse },
    ]);
    const outcome = await caller.stream({ prompt }, { onRetry });
    const parts: LanguageModelV4StreamPart[] = [];
    const failure = await (async () => {
      for await (const part of outcome.stream) {
        if (part.type === 'error') throw part.error;
        parts.push(part);
      }
    })().then(
      () => undefined,
      (error: unknown) => toModelError(error, model),
    );
    expect(textOf(parts).length).toBeGreaterThan(0);
    expect(failure).toBeInstanceOf(AgencyError);
    expect(failure).toMatchObject({ code: 'model_retryable', retryable: true });
    expect(server?.requests()).toBe(1);
    expect(retries).toEqual([]);
  });

  it.each([
    ['non-streaming', false, { kind: 'stall', response: json, bytes: 0 }],
    ['streaming', true, { kind: 'stall', response: sse, bytes: 0 }],
  ] as const)('%s, stalled after the headers: the attempt times out and is retried', async (_n, stream, fault) => {
    const ok = { kind: 'ok', response: stream ? sse : json } as const;
    const { caller, retries, onRetry } = await callerFor(provider, [fault, ok], 300);
    if (stream) await drain((await caller.stream({ prompt }, { onRetry })).stream);
    else await caller.generate({ prompt }, { onRetry });
    expect(server?.requests()).toBe(2);
    expect(retries).toEqual([expect.objectContaining({ errorClass: 'timeout', code: 'model_timeout' })]);
  });
});
