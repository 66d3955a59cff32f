import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { resolveModelOrReplay } from './cassette/resolve-or-replay.ts';
import { parseModelSpec } from './model-spec.ts';
import { resolveModel } from './resolve-model.ts';

describe('parseModelSpec', () => {
  it.each([
    ['openai:gpt-4o', { kind: 'openai', api: 'responses', modelId: 'gpt-4o' }],
    ['openai-chat:gpt-4o-mini', { kind: 'openai', api: 'chat', modelId: 'gpt-4o-mini' }],
    ['anthropic:claude-sonnet-4-5', { kind: 'anthropic', modelId: 'claude-sonnet-4-5' }],
    [
      'openai-compatible:http://127.0.0.1:8000/v1/#llama-3.1-8b',
      { kind: 'openai-compatible', baseURL: 'http://127.0.0.1:8000/v1', modelId: 'llama-3.1-8b' },
    ],
    [
      'openai-compatible:http://localhost:11434/v1#qwen2.5:7b',
      { kind: 'openai-compatible', baseURL: 'http://localhost:11434/v1', modelId: 'qwen2.5:7b' },
    ],
    ['replay:examples/a b/cassette.jsonl', { kind: 'replay', path: 'examples/a b/cassette.jsonl' }],
  ])('parses %s', (spec, expected) => {
    expect(parseModelSpec(spec)).toEqual(expected);
  });

  it.each([
    ['', /it is empty/],
    ['gpt-4o', /no "<provider>:" prefix/],
    ['openai:', /model id is missing/],
    ['anthropic:claude sonnet', /contains spaces/],
    ['gemini:gemini-2.5-pro', /"gemini" is not a known provider/],
    ['openai-compatible:http://127.0.0.1:8000/v1', /needs "#<model>"/],
    ['openai-compatible:not a url#m', /is not a valid URL/],
    ['openai-compatible:ftp://host/v1#m', /must be http or https/],
    ['replay:', /cassette path is missing/],
  ])('rejects %j clearly', (spec, reason) => {
    expect(() => parseModelSpec(spec)).toThrow(
      expect.objectContaining({ code: 'invalid_model_spec', message: expect.stringMatching(reason) }),
    );
    expect(() => parseModelSpec(spec)).toThrow(/openai:<model>/);
  });
});

describe('resolveModel', () => {
  it('builds real provider models with keys from the environment', () => {
    expect(resolveModel('openai:gpt-4o', { env: { OPENAI_API_KEY: 'sk-x' } })).toMatchObject({
      specificationVersion: 'v4',
      provider: 'openai.responses',
      modelId: 'gpt-4o',
    });
    expect(resolveModel('openai-chat:gpt-4o', { env: { OPENAI_API_KEY: 'sk-x' } }).provider).toBe('openai.chat');
    expect(resolveModel('anthropic:claude-haiku-4-5', { env: { ANTHROPIC_API_KEY: 'k' } }).provider).toBe(
      'anthropic.messages',
    );
  });

  it.each([
    ['openai:gpt-4o', 'OPENAI_API_KEY'],
    ['openai-chat:gpt-4o', 'OPENAI_API_KEY'],
    ['anthropic:claude-haiku-4-5', 'ANTHROPIC_API_KEY'],
  ])('names the variable to set when %s has no key', (spec, variable) => {
    expect(() => resolveModel(spec, { env: { [variable]: '  ' } })).toThrow(
      expect.objectContaining({
        code: 'missing_api_key',
        message: expect.stringContaining(`set the ${variable} environment variable`),
      }),
    );
  });

  it('needs no key for an OpenAI-compatible local server', () => {
    const model = resolveModel('openai-compatible:http://127.0.0.1:1234/v1#local', { env: {} });
    expect(model).toMatchObject({ modelId: 'local', provider: 'openai-compatible.chat' });
  });

  it('accepts any LanguageModelV4 object and rejects other objects', () => {
    const scripted = new ScriptedModel(['hi']);
    expect(resolveModel(scripted)).toBe(scripted);
    expect(() => resolveModel({ specificationVersion: 'v2' } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_model_spec' }),
    );
  });

  it('refuses a replay: spec, naming replayModel', () => {
    expect(() => resolveModel('replay:test/cassettes/a.jsonl')).toThrow(
      expect.objectContaining({
        code: 'invalid_model_spec',
        message: expect.stringContaining(`replayModel("test/cassettes/a.jsonl") from 'agency/testing'`),
      }),
    );
  });

  it.each([
    ['openai:gpt-4o', async () => createOpenAI({ apiKey: 'k' }).responses('gpt-4o')],
    ['openai-chat:gpt-4o', async () => createOpenAI({ apiKey: 'k' }).chat('gpt-4o')],
    ['anthropic:claude-haiku-4-5', async () => createAnthropic({ apiKey: 'k' })('claude-haiku-4-5')],
    [
      'openai-compatible:http://127.0.0.1:1234/v1#local',
      async () => createOpenAICompatible({ name: 'openai-compatible', baseURL: 'http://127.0.0.1:1234/v1' })('local'),
    ],
  ])('names %s as its provider does before loading it, and loads it on first use', async (spec, real) => {
    const env = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' };
    const model = resolveModel(spec, { env });
    const expected = await real();
    expect([model.provider, model.modelId]).toEqual([expected.provider, expected.modelId]);
    expect(await model.supportedUrls).toEqual(await expected.supportedUrls);
  });
});

describe('resolveModelOrReplay', () => {
  it('resolves provider specs as resolveModel does', () => {
    expect(resolveModelOrReplay('openai-chat:gpt-4o', { env: { OPENAI_API_KEY: 'k' } }).provider).toBe('openai.chat');
  });

  it('fails fast on a missing cassette', () => {
    expect(() => resolveModelOrReplay('replay:/nonexistent/cassette.jsonl')).toThrow(
      expect.objectContaining({ code: 'cassette_not_found' }),
    );
  });
});
