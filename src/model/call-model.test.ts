import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { apiError, ScriptedModel } from '../testing/scripted-model.ts';
import { createModelCaller, type RetryEvent } from './call-model.ts';

const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }];
const tools = [{ type: 'function' as const, name: 'add', inputSchema: { type: 'object' as const } }];
const rateLimited = (headers: Record<string, string> = {}) =>
  apiError(429, { error: { type: 'rate_limit_error' } }, headers);
const overloaded = () => apiError(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
const badRequest = () => apiError(400, { error: { type: 'invalid_request_error', message: 'bad' } });

function recorder() {
  const waits: number[] = [];
  const retries: RetryEvent[] = [];
  return {
    waits,
    retries,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
    onRetry: (event: RetryEvent) => retries.push(event),
  };
}

async function drain(stream: ReadableStream<LanguageModelV4StreamPart>) {
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('createModelCaller', () => {
  it('retries rate limits and transient failures with exponential backoff and jitter', async () => {
    const model = new ScriptedModel([{ error: rateLimited() }, { error: overloaded() }, 'done']);
    const r = recorder();
    const caller = createModelCaller(model, { sleep: r.sleep, random: () => 0.5, initialDelayMs: 100 });
    const outcome = await caller.generate({ prompt }, { onRetry: r.onRetry });
    expect(outcome.attempts).toBe(3);
    expect(outcome.result.content).toEqual([{ type: 'text', text: 'done' }]);
    // 100 * 2^(n-1), with equal jitter at random()=0.5: 75, then 150.
    expect(r.waits).toEqual([75, 150]);
    expect(r.retries.map((event) => [event.errorClass, event.attempt])).toEqual([
      ['rate_limit', 1],
      ['retryable', 2],
    ]);
  });

  it('honours retry-after', async () => {
    const model = new ScriptedModel([{ error: rateLimited({ 'retry-after': '3' }) }, 'ok']);
    const r = recorder();
    await createModelCaller(model, { sleep: r.sleep }).generate({ prompt });
    expect(r.waits).toEqual([3000]);
  });

  it('gives up after maxRetries with the classified error and the attempt count', async () => {
    const model = new ScriptedModel([{ error: overloaded() }, { error: overloaded() }, { error: overloaded() }]);
    const r = recorder();
    const error = await createModelCaller(model, { sleep: r.sleep, maxRetries: 2 })
      .generate({ prompt })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'model_retryable', details: { attempts: 3, status: 529 } });
    expect(model.calls).toHaveLength(3);
  });

  it('never retries a fatal error on the same model', async () => {
    const model = new ScriptedModel([{ error: badRequest() }, 'unreachable']);
    const error = await createModelCaller(model, { sleep: async () => {} })
      .generate({ prompt })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'model_fatal', details: { status: 400, attempts: 1 } });
    expect(model.calls).toHaveLength(1);
  });

  it('falls back to the next model in the chain after failures', async () => {
    const primary = new ScriptedModel([{ error: badRequest() }], { modelId: 'primary' });
    const backup = new ScriptedModel(['from backup'], { modelId: 'backup' });
    const r = recorder();
    const outcome = await createModelCaller([primary, backup], { sleep: r.sleep }).generate(
      { prompt },
      { onRetry: r.onRetry },
    );
    expect(outcome.model).toBe(backup);
    expect(r.retries).toEqual([
      expect.objectContaining({ model: 'scripted:primary', fallbackTo: 'scripted:backup', delayMs: 0 }),
    ]);
  });

  it('skips models that lack a needed capability', async () => {
    const textOnly = new ScriptedModel(['no'], { modelId: 'text-only' });
    const withTools = new ScriptedModel(['yes'], { modelId: 'with-tools' });
    const caller = createModelCaller([{ model: textOnly, capabilities: { tools: false } }, withTools]);
    expect((await caller.generate({ prompt, tools })).model).toBe(withTools);
    expect(textOnly.calls).toHaveLength(0);
    expect((await caller.generate({ prompt })).model).toBe(textOnly);
  });

  it('uses the catalog for known models and explains when none is capable', async () => {
    const o1mini = new ScriptedModel(['x'], { modelId: 'o1-mini' }); // the catalog says: no images
    const image = {
      type: 'file' as const,
      mediaType: 'image/png',
      data: { type: 'data' as const, data: 'iVBORw0KGgo=' },
    };
    const caller = createModelCaller([
      o1mini,
      { model: new ScriptedModel(['x'], { modelId: 'tiny' }), capabilities: { contextTokens: 10 } },
    ]);
    const error = await caller
      .generate({ prompt: [{ role: 'user', content: [image, { type: 'text', text: 'x'.repeat(100) }] }] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'no_capable_model' });
    expect((error as Error).message).toMatch(/o1-mini: it does not accept images/);
    expect((error as Error).message).toMatch(/tiny: the request needs about \d+ tokens of context and it has 10/);
  });

  it('times out an attempt and retries it', async () => {
    const model = new ScriptedModel([{ delayMs: 5_000, text: 'slow' }, 'fast']);
    const r = recorder();
    const outcome = await createModelCaller(model, { timeoutMs: 50, sleep: r.sleep }).generate(
      { prompt },
      { onRetry: r.onRetry },
    );
    expect(outcome.result.content).toEqual([{ type: 'text', text: 'fast' }]);
    expect(r.retries[0]).toMatchObject({ errorClass: 'timeout', code: 'model_timeout' });
  });

  it('stops at once when the caller aborts, without retrying', async () => {
    const model = new ScriptedModel([{ delayMs: 5_000, text: 'slow' }, 'never']);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    const error = await createModelCaller(model)
      .generate({ prompt }, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'aborted' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(model.calls).toHaveLength(1);
  });

  it('does not hang on a model that ignores its abort signal', async () => {
    const stubborn = new ScriptedModel([]);
    stubborn.doGenerate = () => new Promise(() => {});
    const error = await createModelCaller(stubborn, { timeoutMs: 30, maxRetries: 0 })
      .generate({ prompt })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'model_timeout' });
  });

  it('retries a stream that fails before any content', async () => {
    const model = new ScriptedModel([{ error: overloaded() }, { text: 'streamed answer' }]);
    const { stream, attempts } = await createModelCaller(model, { sleep: async () => {} }).stream({ prompt });
    const parts = await drain(stream);
    expect(attempts).toBe(2);
    expect(
      parts
        .filter((part) => part.type === 'text-delta')
        .map((part) => (part as { delta: string }).delta)
        .join(''),
    ).toBe('streamed answer');
  });

  it('does not retry a stream once content has been delivered; the error reaches the consumer', async () => {
    const model = new ScriptedModel([{ text: 'partial', streamError: overloaded() }, 'not used']);
    const { stream } = await createModelCaller(model, { sleep: async () => {} }).stream({ prompt });
    const parts = await drain(stream);
    expect(parts.some((part) => part.type === 'text-delta')).toBe(true);
    expect(parts.at(-1)).toMatchObject({ type: 'error' });
    expect(model.calls).toHaveLength(1);
  });
});
