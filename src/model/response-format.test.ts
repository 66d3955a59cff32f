import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toModelJsonSchema } from '../tools/define-tool.ts';
import { isStrictJsonSchema, jsonAnswerRequest } from './response-format.ts';

describe('jsonAnswerRequest', () => {
  it('keeps OpenAI strict mode for a closed, fully required schema', () => {
    const schema = toModelJsonSchema(z.object({ a: z.string(), b: z.array(z.object({ c: z.number().min(0) })) }));
    expect(isStrictJsonSchema(schema)).toBe(true);
    expect(jsonAnswerRequest({ schema, name: 'answer' })).toEqual({
      responseFormat: { type: 'json', schema, name: 'answer' },
    });
  });

  it.each([
    ['an optional property', z.object({ a: z.string().optional() })],
    ['a record', z.object({ a: z.record(z.string(), z.number()) })],
    ['a string length', z.object({ a: z.string().min(1) })],
    ['a discriminated union (oneOf)', z.object({ a: z.discriminatedUnion('t', [z.object({ t: z.literal('x') })]) })],
  ])('switches strict mode off for %s', (_, zod) => {
    const request = jsonAnswerRequest({ schema: toModelJsonSchema(zod) });
    expect(request.providerOptions).toEqual({
      openai: { strictJsonSchema: false },
      openaiCompatible: { strictJsonSchema: false },
    });
  });
});
