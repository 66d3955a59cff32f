import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APICallError, type EmbeddingModelV4 } from '@ai-sdk/provider';
import { embedMany } from 'ai';
import { describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { ScriptedModel } from '../../testing/scripted-model.ts';
import { recordEmbeddingModel } from './record-embedding-model.ts';
import { recordModel } from './record-model.ts';
import { replayEmbeddingModel } from './replay-embedding-model.ts';
import { replayModel } from './replay-model.ts';

const dir = mkdtempSync(join(tmpdir(), 'agency-embed-cassette-'));
let files = 0;
const tempFile = () => join(dir, `c${files++}.jsonl`);

// A deterministic local embedding model: each text's character codes folded into 8 dimensions.
function localModel(seen: string[][] = [], fail?: string): EmbeddingModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'local',
    modelId: 'fold-8',
    maxEmbeddingsPerCall: 2,
    supportsParallelCalls: true,
    async doEmbed({ values }) {
      seen.push(values);
      if (fail !== undefined && values.includes(fail)) {
        throw new APICallError({
          message: 'rate limited',
          url: 'https://embed.test',
          requestBodyValues: {},
          statusCode: 429,
          isRetryable: true,
        });
      }
      const embeddings = values.map((text) => {
        const vector = Array.from({ length: 8 }, (_, i) => i / 10);
        for (let i = 0; i < text.length; i++) vector[i % 8] = (vector[i % 8] as number) + text.charCodeAt(i) / 97;
        return vector;
      });
      return {
        embeddings,
        usage: { tokens: values.length * 3 },
        warnings: [],
        response: { headers: { 'x-request-id': 'r1', authorization: 'Bearer sk-x' }, body: { raw: true } },
      };
    },
  };
}

async function codeOf(promise: PromiseLike<unknown>): Promise<AgencyError> {
  const error = await Promise.resolve(promise).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AgencyError);
  return error as AgencyError;
}

describe('embedding cassettes', () => {
  it('records vectors and replays them offline, splitting a batch as the recording did', async () => {
    const path = tempFile();
    const texts = ['a car', 'a kitten', 'the weather today', 'tea'];
    // In parallel, as embedMany calls a model that supports it: one header, both calls.
    const live = await embedMany({
      model: recordEmbeddingModel(localModel(), path),
      values: texts,
      maxParallelCalls: 2,
    });
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      provider: 'local',
      modelId: 'fold-8',
      maxEmbeddingsPerCall: 2,
    });
    const first = lines.map((line) => JSON.parse(line)).find((line) => line.index === 0);
    expect(first).toMatchObject({ index: 0, mode: 'embed', request: { values: ['a car', 'a kitten'] } });
    expect(first.response.response).toEqual({ headers: { 'x-request-id': 'r1' } });

    const replay = replayEmbeddingModel(path);
    expect([replay.provider, replay.modelId, replay.callCount]).toEqual(['local', 'fold-8', 2]);
    const again = await embedMany({ model: replay, values: texts });
    expect(again.embeddings).toEqual(live.embeddings);
    expect(again.usage).toEqual(live.usage);
    expect(replay.served).toBe(2);
  });

  it('names the call, the line and the differing text on a mismatch, and says how to re-record', async () => {
    const path = tempFile();
    const recorder = recordEmbeddingModel(localModel(), path);
    await recorder.doEmbed({ values: ['first'] });
    await recorder.doEmbed({ values: ['second', 'third'] });
    const replay = replayEmbeddingModel(path);
    await replay.doEmbed({ values: ['first'] });
    const error = await codeOf(replay.doEmbed({ values: ['second', 'changed'] }));
    expect(error.code).toBe('cassette_mismatch');
    expect(error.message).toContain(`Cassette ${path} line 3: call #1 differs from the recording at "values[1]"`);
    expect(error.message).toContain('recorded "third", got "changed"');
    expect(error.message).toMatch(/Re-record the cassette/);
    // A dimensions option the recording did not ask for is a difference too.
    const fresh = await codeOf(replayEmbeddingModel(path).doEmbed({ values: ['first'], dimensions: 4 }));
    expect(fresh.message).toMatch(/differs at "dimensions": recorded \(absent\), got 4/);
    // More calls than recorded.
    await replay.doEmbed({ values: ['second', 'third'] });
    const exhausted = await codeOf(replay.doEmbed({ values: ['fourth'] }));
    expect(exhausted.code).toBe('cassette_exhausted');
    expect(exhausted.message).toMatch(/recorded 2 call\(s\), but call #2 was made.*more embedding calls/);
  });

  it('redacts a secret in the texts before writing, and still matches the live request strictly', async () => {
    const path = tempFile();
    const key = 'sk-proj-EmbeddedSecret0123456789abcdef';
    const recorder = recordEmbeddingModel(localModel(), path);
    const live = await recorder.doEmbed({ values: [`remember my key ${key}`] });
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(key);
    expect(text).toContain('[REDACTED:openai]');
    expect(text).not.toContain('sk-x');
    const replayed = await replayEmbeddingModel(path).doEmbed({ values: [`remember my key ${key}`] });
    expect(replayed.embeddings).toEqual(live.embeddings);
  });

  it('records a failed call and replays it as the same provider error', async () => {
    const path = tempFile();
    const recorder = recordEmbeddingModel(localModel([], 'boom'), path);
    await expect(recorder.doEmbed({ values: ['boom'] })).rejects.toThrow(/rate limited/);
    const error = await Promise.resolve(replayEmbeddingModel(path).doEmbed({ values: ['boom'] })).catch(
      (caught: unknown) => caught,
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(429);
  });

  it('refuses a cassette whose last line was cut short, naming the line and how to recover', async () => {
    const path = tempFile();
    const recorder = recordEmbeddingModel(localModel(), path);
    await recorder.doEmbed({ values: ['one'] });
    await recorder.doEmbed({ values: ['two'] });
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.slice(0, text.length - 25));
    let error: unknown;
    try {
      replayEmbeddingModel(path);
    } catch (caught) {
      error = caught;
    }
    expect((error as AgencyError).code).toBe('cassette_corrupt');
    expect((error as AgencyError).message).toMatch(
      new RegExp(`Cassette ${path} line 3 is corrupt: invalid JSON .*cut short.*delete line 3`),
    );
    // Deleting the torn line keeps the calls before it.
    writeFileSync(path, `${text.split('\n').slice(0, 2).join('\n')}\n`);
    expect(replayEmbeddingModel(path).callCount).toBe(1);
  });

  it('refuses to replay a chat cassette as an embedding model, and the other way round', async () => {
    const chat = tempFile();
    await recordModel(new ScriptedModel(['hi']), chat).doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
    });
    expect(() => replayEmbeddingModel(chat)).toThrow(/line 2 is a "generate" call.*replay it with replayModel/);
    const vectors = tempFile();
    await recordEmbeddingModel(localModel(), vectors).doEmbed({ values: ['x'] });
    expect(() => replayModel(vectors)).toThrow(/line 2 is a "embed" call.*replay it with replayEmbeddingModel/);
  });
});
