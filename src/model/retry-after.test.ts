import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResponse, type RecordedResponse, sseResponse } from '../../test/support/fixture-fetch.ts';
import { type Fault, type FaultServer, startFaultServer } from '../../test/support/fault-server.ts';
import { createModelCaller, type ModelCallerOptions } from './call-model.ts';
import { resolveModel } from './resolve-model.ts';

// A throttling server (HTTP 429 with `retry-after: 90`, or an HTTP date 90 s ahead) in front of the real providers.
// The caller waits when the time it has left allows, and otherwise fails at once with the server's retry-after in
// the message. Sleeps and the clock are injected, so nothing here waits 90 s.

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const IN_90_S = '2026-11-23T12:01:30.000Z';

type Provider = { name: string; spec: (url: string) => string; json: () => RecordedResponse; throttled: string };

// The providers' documented 429 bodies: OpenAI's (also what OpenAI-compatible servers send) and Anthropic's.
const OPENAI_429 = JSON.stringify({
  error: {
    message: 'Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 500, Used 500, Requested 1.',
    type: 'requests',
    param: null,
    code: 'rate_limit_exceeded',
  },
});
const ANTHROPIC_429 = JSON.stringify({
  type: 'error',
  error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
});

const PROVIDERS: Provider[] = [
  {
    name: '@ai-sdk/openai (Responses API)',
    spec: () => 'openai:gpt-4o',
    json: () => jsonResponse('openai-responses/openai-reasoning-encrypted-content.1.json'),
    throttled: OPENAI_429,
  },
  {
    name: '@ai-sdk/openai (Chat Completions)',
    spec: () => 'openai-chat:gpt-4o-mini',
    json: () => jsonResponse('openai-chat/openai-text.json'),
    throttled: OPENAI_429,
  },
  {
    name: '@ai-sdk/anthropic',
    spec: () => 'anthropic:claude-sonnet-4-5',
    json: () => jsonResponse('anthropic/anthropic-text.json'),
    throttled: ANTHROPIC_429,
  },
  {
    name: '@ai-sdk/openai-compatible',
    spec: (url) => `openai-compatible:${url}#gpt-4o-mini`,
    json: () => jsonResponse('openai-chat/openai-text.json'),
    throttled: OPENAI_429,
  },
];

const STREAMS: Record<string, () => RecordedResponse> = {
  '@ai-sdk/anthropic': () => sseResponse('anthropic/tool_use_response.txt'),
  '@ai-sdk/openai (Responses API)': () =>
    sseResponse('openai-responses/test_openai_responses_stream.interaction-1.response.sse'),
};
const chatStream = () => sseResponse('openai-chat/test_run_stream_sync_streams_real_model.interaction-1.response.sse');

const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Hello' }] }];
let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function call(provider: Provider, stream: boolean, retryAfter: string, options: ModelCallerOptions = {}) {
  const answer = stream ? (STREAMS[provider.name] ?? chatStream)() : provider.json();
  const throttle: Fault = {
    kind: 'status',
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': retryAfter },
    body: provider.throttled,
  };
  server = await startFaultServer([throttle, { kind: 'ok', response: answer }]);
  const model = resolveModel(provider.spec(server.url), {
    env: {
      OPENAI_API_KEY: 'sk-test',
      ANTHROPIC_API_KEY: 'sk-ant',
      OPENAI_BASE_URL: server.url,
      ANTHROPIC_BASE_URL: server.url,
    },
  });
  const waits: number[] = [];
  const caller = createModelCaller(model, {
    now: () => NOW,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...options,
  });
  const run = async () => {
    if (!stream) return (await caller.generate({ prompt })).attempts;
    const outcome = await caller.stream({ prompt });
    const parts: LanguageModelV4StreamPart[] = [];
    for await (const part of outcome.stream) parts.push(part);
    expect(parts.at(-1)).toMatchObject({ type: 'finish' });
    return outcome.attempts;
  };
  const result = await run().then(
    (attempts) => ({ attempts, error: undefined }),
    (error: unknown) => ({ attempts: undefined, error: error as Error & { code?: string } }),
  );
  return { ...result, waits, requests: server.requests() };
}

const HTTP_DATE = new Date(IN_90_S).toUTCString();

describe.each(PROVIDERS)('a 429 with a long retry-after: $name', (provider) => {
  describe.each([
    ['non-streaming', false],
    ['streaming', true],
  ] as const)('%s', (_mode, stream) => {
    it.each([
      ['retry-after: 90', '90'],
      ['retry-after: <HTTP date 90 s ahead>', HTTP_DATE],
    ])('%s, with 5 minutes left: waits the 90 s, then answers', async (_name, header) => {
      const outcome = await call(provider, stream, header, { timeLeftMs: () => 300_000 });
      expect(outcome.error).toBeUndefined();
      expect(outcome.waits).toEqual([90_000]);
      expect(outcome).toMatchObject({ attempts: 2, requests: 2 });
    });

    it.each([
      ['retry-after: 90', '90'],
      ['retry-after: <HTTP date 90 s ahead>', HTTP_DATE],
    ])('%s, with 30 s left: fails at once, giving the retry-after', async (_name, header) => {
      const outcome = await call(provider, stream, header, { timeLeftMs: () => 30_000 });
      expect(outcome.waits).toEqual([]);
      expect(outcome.requests).toBe(1);
      expect(outcome.error).toMatchObject({ code: 'model_rate_limit' });
      expect(outcome.error?.message).toContain(`retry after 90 s (retry-after, at ${IN_90_S})`);
      expect(outcome.error?.message).toContain('only 30 s are left');
    });

    it('with no time limit, beyond maxRetryAfterMs: fails at once, naming the setting', async () => {
      const outcome = await call(provider, stream, '90');
      expect(outcome.waits).toEqual([]);
      expect(outcome.requests).toBe(1);
      expect(outcome.error).toMatchObject({ code: 'model_rate_limit' });
      expect(outcome.error?.message).toContain(`retry after 90 s (retry-after, at ${IN_90_S})`);
      expect(outcome.error?.message).toContain('maxRetryAfterMs (60 s)');
    });
  });
});
