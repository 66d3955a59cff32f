import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../core/redact.ts';
import { apiError, ScriptedModel } from '../../testing/scripted-model.ts';
import { createModelCaller } from '../call-model.ts';
import { streamPartsToResult } from '../stream-convert.ts';
import { recordModel } from './record-model.ts';
import { replayModel } from './replay-model.ts';
import { resolveModelOrReplay } from './resolve-or-replay.ts';

const tools = [
  {
    type: 'function' as const,
    name: 'calculator',
    description: 'Adds or multiplies',
    inputSchema: { type: 'object' as const, properties: { a: { type: 'number' as const } } },
  },
];

function script() {
  return new ScriptedModel(
    [
      { reasoning: 'add first', toolCalls: [{ id: 'call_1', name: 'calculator', input: { op: 'add', a: 12, b: 7 } }] },
      { toolCalls: [{ id: 'call_2', name: 'calculator', input: { op: 'mul', a: 19, b: 3 } }] },
      { text: 'The result is 57.', usage: { inputTokens: 120, outputTokens: 9, cachedInputTokens: 100 } },
    ],
    { provider: 'openai.responses', modelId: 'gpt-4o' },
  );
}

// Drives a 3-call tool conversation the way an agent loop does: each request carries the previous turns.
async function converse(
  model: LanguageModelV4,
  mode: 'generate' | 'stream',
  edit?: (call: number, o: LanguageModelV4CallOptions) => void,
) {
  const prompt: LanguageModelV4Prompt = [
    { role: 'system', content: 'You are a calculator.' },
    { role: 'user', content: [{ type: 'text', text: 'What is (12 + 7) * 3?' }] },
  ];
  const results: LanguageModelV4GenerateResult[] = [];
  for (let call = 0; call < 3; call++) {
    const options: LanguageModelV4CallOptions = { prompt: structuredClone(prompt), tools, temperature: 0 };
    edit?.(call, options);
    let result: LanguageModelV4GenerateResult;
    if (mode === 'generate') {
      result = await model.doGenerate(options);
    } else {
      const parts: LanguageModelV4StreamPart[] = [];
      for await (const part of (await model.doStream(options)).stream) parts.push(part);
      result = streamPartsToResult(parts);
    }
    results.push(result);
    const toolCall = result.content.find((item) => item.type === 'tool-call');
    if (!toolCall || toolCall.type !== 'tool-call') break;
    prompt.push({
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: toolCall.toolCallId,
          toolName: toolCall.toolName,
          input: JSON.parse(toolCall.input),
        },
      ],
    });
    prompt.push({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: toolCall.toolCallId,
          toolName: toolCall.toolName,
          output: { type: 'json', value: call === 0 ? 19 : 57 },
        },
      ],
    });
  }
  return results;
}

const tempFile = (name = 'cassette.jsonl') => join(mkdtempSync(join(tmpdir(), 'agency-cassette-')), name);

describe('record and replay', () => {
  it.each(['generate', 'stream'] as const)('round-trips a 3-call tool conversation (%s)', async (mode) => {
    const path = tempFile();
    const recorded = await converse(recordModel(script(), path), mode);
    const replay = replayModel(path);
    const replayed = await converse(replay, mode);
    expect(replayed).toEqual(recorded);
    expect(replayed).toHaveLength(3);
    expect(replay).toMatchObject({ provider: 'openai.responses', modelId: 'gpt-4o', callCount: 3, served: 3 });
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ type: 'header', format: 'agency.cassette.v1' });
  });

  it('serves a call recorded one way to a call made the other way', async () => {
    const path = tempFile();
    const recorded = await converse(recordModel(script(), path), 'generate');
    const streamed = await converse(replayModel(path), 'stream');
    expect(streamed.map((result) => result.content)).toEqual(recorded.map((result) => result.content));
    expect(streamed.map((result) => result.usage)).toEqual(recorded.map((result) => result.usage));
  });

  it('replays through resolveModelOrReplay("replay:…")', async () => {
    const path = tempFile();
    const recorded = await converse(recordModel(script(), path), 'generate');
    expect(await converse(resolveModelOrReplay(`replay:${path}`), 'generate')).toEqual(recorded);
  });

  it('fails a changed request, naming the call, the line and the first differing field', async () => {
    const path = tempFile();
    await converse(recordModel(script(), path), 'generate');
    const changed = converse(replayModel(path), 'generate', (call, options) => {
      if (call === 1) options.temperature = 0.7;
    });
    await expect(changed).rejects.toMatchObject({
      code: 'cassette_mismatch',
      details: { index: 1, line: 3, field: 'temperature' },
      message: expect.stringMatching(
        /line 3: call #1 differs from the recording at "temperature": recorded 0, got 0\.7/,
      ),
    });
    const reworded = converse(replayModel(path), 'generate', (call, options) => {
      if (call === 0) (options.prompt[1] as { content: Array<{ text: string }> }).content[0]!.text = 'What is 2 + 2?';
    });
    await expect(reworded).rejects.toMatchObject({ details: { field: 'prompt[1].content[0].text' } });
  });

  it('matches by order only in lenient mode', async () => {
    const path = tempFile();
    const recorded = await converse(recordModel(script(), path), 'generate');
    const results = await converse(replayModel(path, { lenient: true }), 'generate', (_call, options) => {
      options.temperature = 1;
    });
    expect(results).toEqual(recorded);
  });

  it('fails clearly when the run makes more calls than were recorded', async () => {
    const path = tempFile();
    await converse(recordModel(script(), path), 'generate');
    const replay = replayModel(path);
    await converse(replay, 'generate');
    await expect(replay.doGenerate({ prompt: [] })).rejects.toMatchObject({
      code: 'cassette_exhausted',
      message: expect.stringContaining('recorded 3 call(s), but call #3 was made'),
    });
  });

  it('records failed calls and replays them as the same provider error', async () => {
    const path = tempFile();
    const failing = new ScriptedModel([
      { error: apiError(429, { error: { type: 'rate_limit_error' } }, { 'retry-after': '1' }) },
      'recovered',
    ]);
    const caller = (model: LanguageModelV4) => createModelCaller(model, { sleep: async () => {} });
    const live = await caller(recordModel(failing, path)).generate({ prompt: [] });
    const replayed = await caller(replayModel(path)).generate({ prompt: [] });
    expect(replayed.attempts).toBe(2);
    expect(replayed.retries[0]).toMatchObject({ errorClass: 'rate_limit', delayMs: 1000 });
    expect(replayed.result).toEqual(live.result);
  });

  it('records a stream that fails midway, and replays the failure', async () => {
    const path = tempFile();
    const broken = new ScriptedModel([{ text: 'partial', streamError: apiError(500) }]);
    const collect = async (model: LanguageModelV4) => {
      const parts: LanguageModelV4StreamPart[] = [];
      for await (const part of (await model.doStream({ prompt: [] })).stream) parts.push(part);
      return parts;
    };
    const live = await collect(recordModel(broken, path));
    const replayed = await collect(replayModel(path));
    expect(replayed.map((part) => part.type)).toEqual(live.map((part) => part.type));
    expect(replayed.at(-1)).toMatchObject({ type: 'error', error: { statusCode: 500 } });
  });

  it('never records request headers, and keeps only harmless response headers', async () => {
    const path = tempFile();
    const model = new ScriptedModel(['ok']);
    const original = model.doGenerate.bind(model);
    model.doGenerate = async (options) => ({
      ...(await original(options)),
      response: {
        headers: { 'x-request-id': 'req_1', 'set-cookie': 'session=secret', authorization: 'Bearer sk-live' },
      },
    });
    await recordModel(model, path).doGenerate({ prompt: [], headers: { Authorization: 'Bearer sk-live-secret' } });
    const text = readFileSync(path, 'utf8');
    expect(text).not.toMatch(/sk-live|session=secret/);
    expect(text).toContain('req_1');
  });

  it('redacts secrets from requests, responses, stream parts and errors before writing', async () => {
    const path = tempFile();
    const key = 'sk-proj-RecordedSecret0123456789abcdef';
    const registered = 'registered-credential-value';
    const model = new ScriptedModel([
      `Here is your token: ghp_${'A'.repeat(36)}`,
      { text: `streamed ${registered}`, streamError: new Error(`upstream rejected ${key}`) },
    ]);
    const redactor = createRedactor({ extraSecrets: [registered] });
    const recorder = recordModel(model, path, { redactor });
    const prompt: LanguageModelV4Prompt = [{ role: 'user', content: [{ type: 'text', text: `my key is ${key}` }] }];
    await recorder.doGenerate({ prompt });
    const parts: LanguageModelV4StreamPart[] = [];
    for await (const part of (await recorder.doStream({ prompt })).stream) parts.push(part);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(key);
    expect(text).not.toContain('ghp_AAAA');
    expect(text).not.toContain(registered);
    expect(text).toContain('[REDACTED:openai]');
    expect(text).toContain('[REDACTED:github]');
    expect(parts.some((part) => part.type === 'text-delta' && part.delta.includes(registered))).toBe(true);
    // The recording is self-consistent and replays by order.
    const replay = replayModel(path, { lenient: true });
    expect((await replay.doGenerate({ prompt })).content).toEqual([
      { type: 'text', text: 'Here is your token: [REDACTED:github]' },
    ]);
    // Strict replay matches too: the live request is redacted the same way before it is compared.
    expect((await replayModel(path).doGenerate({ prompt })).content).toEqual([
      { type: 'text', text: 'Here is your token: [REDACTED:github]' },
    ]);
  });

  it('redacts a secret streamed across several deltas, keeping the chunking of the rest', async () => {
    const path = tempFile();
    const key = 'sk-proj-SplitAcrossDeltas0123456789';
    const deltas = ['Your key: ', key.slice(0, 6), key.slice(6, 20), key.slice(20), '.'];
    const parts: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't0' },
      ...deltas.map((delta) => ({ type: 'text-delta' as const, id: 't0', delta })),
      { type: 'text-end', id: 't0' },
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'plain ' },
      { type: 'text-delta', id: 't1', delta: 'text' },
      { type: 'text-end', id: 't1' },
      {
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
      },
    ];
    const model = new ScriptedModel(['unused']);
    model.doStream = async () => ({
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    });
    for await (const _part of (await recordModel(model, path, { redactor: createRedactor() }).doStream({ prompt: [] }))
      .stream);
    const text = readFileSync(path, 'utf8');
    for (const piece of deltas.slice(1, 4)) expect(text).not.toContain(piece);
    const recorded = (JSON.parse(text.trim().split('\n')[1] as string) as { stream: Array<{ delta?: string }> }).stream;
    expect(recorded.filter((part) => part.delta !== undefined).map((part) => part.delta)).toEqual([
      'Your key: [REDACTED:openai].',
      'plain ',
      'text',
    ]);
  });

  it('appends to an existing cassette when asked', async () => {
    const path = tempFile();
    await recordModel(new ScriptedModel(['one']), path).doGenerate({ prompt: [] });
    await recordModel(new ScriptedModel(['two']), path, { append: true }).doGenerate({ prompt: [] });
    const replay = replayModel(path, { lenient: true });
    expect(replay.callCount).toBe(2);
    expect((await replay.doGenerate({ prompt: [] })).content).toEqual([{ type: 'text', text: 'one' }]);
    expect((await replay.doGenerate({ prompt: [] })).content).toEqual([{ type: 'text', text: 'two' }]);
  });
});

describe('reading a damaged cassette', () => {
  const header = JSON.stringify({
    type: 'header',
    format: 'agency.cassette.v1',
    provider: 'p',
    modelId: 'm',
    createdAt: 'x',
  });
  const call = (index: number) =>
    JSON.stringify({ type: 'call', index, mode: 'generate', digest: 'a'.repeat(64), request: {}, response: {} });

  it.each([
    ['a truncated JSON line', `${header}\n${call(0)}\n{"type":"call","ind\n`, 3, /invalid JSON/],
    [
      'a call without a digest',
      `${header}\n${JSON.stringify({ type: 'call', index: 0, mode: 'generate', request: {}, response: {} })}\n`,
      2,
      /digest/,
    ],
    [
      'a call with nothing recorded',
      `${header}\n${JSON.stringify({ type: 'call', index: 0, mode: 'generate', digest: 'a'.repeat(64), request: {} })}\n`,
      2,
      /needs "response", "stream" or "error"/,
    ],
    ['a wrong header', `{"type":"header","format":"other.v9"}\n${call(0)}\n`, 1, /header/],
    ['an empty file', '', 1, /empty/],
    ['a gap in the call indexes', `${header}\n${call(0)}\n${call(2)}\n`, 3, /out of sequence/],
  ])('rejects %s, naming the line', (_name, text, line, reason) => {
    const path = tempFile();
    writeFileSync(path, text);
    expect(() => replayModel(path)).toThrow(
      expect.objectContaining({
        code: 'cassette_corrupt',
        details: { file: path, line },
        message: expect.stringMatching(reason),
      }),
    );
    expect(() => replayModel(path)).toThrow(new RegExp(`line ${line} is corrupt`));
  });
});

describe('replaying a resumed run', () => {
  it('continues from the recorded call that the first request matches', async () => {
    const path = tempFile();
    const recorded = await converse(recordModel(script(), path), 'generate');
    // A fresh process that crashed after call #0 resumes by asking call #1 first.
    const resumed = replayModel(path);
    const prompt: LanguageModelV4Prompt = [
      { role: 'system', content: 'You are a calculator.' },
      { role: 'user', content: [{ type: 'text', text: 'What is (12 + 7) * 3?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'calculator', input: { op: 'add', a: 12, b: 7 } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'call_1', toolName: 'calculator', output: { type: 'json', value: 19 } },
        ],
      },
    ];
    const result = await resumed.doGenerate({ prompt, tools, temperature: 0 });
    expect(result).toEqual(recorded[1]);
    expect(resumed.served).toBe(2);
  });

  it('names the closest recorded call, and where in a long text they part, when a resumed request matches none', async () => {
    const path = tempFile();
    const brief = `Brief: ${'context '.repeat(40)}`;
    const recorder = recordModel(new ScriptedModel(['first', 'second']), path);
    const ask = (text: string): LanguageModelV4Prompt => [{ role: 'user', content: [{ type: 'text', text }] }];
    await recorder.doGenerate({ prompt: ask('hello') });
    await recorder.doGenerate({ prompt: ask(`${brief}\n- task/notes.md`) });
    const error = await Promise.resolve(
      replayModel(path).doGenerate({ prompt: ask(`${brief}\n- task/.notes.md.tmp\n- task/notes.md`) }),
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'cassette_mismatch', details: { index: 1, line: 3 } });
    expect((error as Error).message).toContain(
      `line 3: no recorded call matches call #0; the closest, call #1, differs at "prompt[0].content[0].text" (character ${brief.length + 8}): recorded …"`,
    );
    expect((error as Error).message).toMatch(/got …".*task\/\.notes\.md\.tmp/);
  });
});

describe('replaying requests that carried a secret', () => {
  it('matches strictly, because the live request is redacted as the recording was', async () => {
    const path = tempFile();
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const prompt: LanguageModelV4Prompt = [{ role: 'user', content: [{ type: 'text', text: `my key is ${secret}` }] }];
    await recordModel(new ScriptedModel(['noted']), path).doGenerate({ prompt });
    expect(readFileSync(path, 'utf8')).not.toContain(secret);
    const replayed = await replayModel(path).doGenerate({ prompt });
    expect(replayed.content).toEqual([{ type: 'text', text: 'noted' }]);
    const changed: LanguageModelV4Prompt = [
      { role: 'user', content: [{ type: 'text', text: `my other key is ${secret}` }] },
    ];
    const error = await Promise.resolve(replayModel(path).doGenerate({ prompt: changed })).catch((e: unknown) => e);
    expect(String((error as Error).message)).not.toContain(secret);
  });
});
