import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { LLMAgent } from '../../src/agent/llm-agent.ts';
import { resolveModel } from '../../src/model/resolve-model.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { fixtureText } from '../support/fixture-fetch.ts';
import { json, type RecordingServer, type ServedResponse, startRecordingServer } from '../support/recording-server.ts';

// Structured answers through the real @ai-sdk providers, served over HTTP by a local server. Response bodies are the
// recorded fixtures of src/model/__fixtures__ (see its README): served verbatim where a recording holds what the
// test needs (Anthropic's `json` tool answer, prose that fails a schema), and otherwise in the recording's exact
// format with only the answer's text replaced by JSON.

type Body = Record<string, unknown>;
const weather = z.object({ city: z.string(), tempC: z.number() });
const ANSWER = '{"city":"Paris","tempC":14}';

function fixture(path: string): Body {
  return JSON.parse(fixtureText(path)) as Body;
}

/** openai-reasoning-encrypted-content.1.json (Responses API) with its output_text replaced. */
function responsesText(text: string): ServedResponse {
  const body = fixture('openai-responses/openai-reasoning-encrypted-content.1.json');
  const message = (body.output as Body[]).find((item) => item.type === 'message') as { content: Body[] };
  (message.content[0] as Body).text = text;
  return json(body);
}

/** openai-text.json (Chat Completions) with its message content replaced. */
function chatText(text: string): ServedResponse {
  const body = fixture('openai-chat/openai-text.json');
  ((body.choices as Body[])[0]?.message as Body).content = text;
  return json(body);
}

/** anthropic-text.json (Messages API) with its text block replaced. */
function anthropicText(text: string): ServedResponse {
  const body = fixture('anthropic/anthropic-text.json');
  ((body.content as Body[])[0] as Body).text = text;
  return json(body);
}

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(responses: ServedResponse[]) {
  server = await startRecordingServer(responses);
  const env = {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    ANTHROPIC_BASE_URL: server.url,
  };
  const url = server.url;
  return {
    bodies: server.bodies as Body[],
    model: (spec: string) => resolveModel(spec.replace('<url>', url), { env }),
  };
}

describe('structured output through the real providers', () => {
  it('OpenAI Responses: sends text.format json_schema (strict) and types result.object', async () => {
    const { bodies, model } = await serve([responsesText(ANSWER)]);
    const agent = new LLMAgent({
      name: 'w',
      model: model('openai:gpt-5-mini'),
      schema: weather,
      schemaName: 'weather',
    });
    const result = await agent.execute({ input: 'Weather in Paris?' });
    expect(result).toMatchObject({ finishReason: 'stop', output: ANSWER, object: { city: 'Paris', tempC: 14 } });
    expectTypeOf(result.object).toEqualTypeOf<{ city: string; tempC: number } | undefined>();
    expect(bodies[0]?.text).toEqual({
      format: {
        type: 'json_schema',
        strict: true,
        name: 'weather',
        schema: {
          type: 'object',
          properties: { city: { type: 'string' }, tempC: { type: 'number' } },
          required: ['city', 'tempC'],
          additionalProperties: false,
        },
      },
    });
  });

  it('OpenAI Chat: sends response_format json_schema, and turns strict mode off for a schema it would refuse', async () => {
    const { bodies, model } = await serve([chatText(ANSWER)]);
    const lenient = weather.extend({ note: z.string().optional() });
    const result = await new LLMAgent({ name: 'w', model: model('openai-chat:gpt-4.1-nano') }).execute(
      { input: 'Weather in Paris?' },
      { schema: lenient },
    );
    expect(result.object).toEqual({ city: 'Paris', tempC: 14 });
    expectTypeOf(result.object).toEqualTypeOf<{ city: string; tempC: number; note?: string | undefined } | undefined>();
    expect(bodies[0]?.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'response', strict: false, schema: { required: ['city', 'tempC'] } },
    });
  });

  it('OpenAI-compatible (vLLM, llama.cpp, LM Studio, Ollama): sends response_format json_schema', async () => {
    const { bodies, model } = await serve([chatText(ANSWER)]);
    const agent = new LLMAgent({ name: 'w', model: model('openai-compatible:<url>#local-model'), schema: weather });
    expect((await agent.execute({ input: 'Weather in Paris?' })).object).toEqual({ city: 'Paris', tempC: 14 });
    expect(bodies[0]?.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { strict: true, schema: { required: ['city', 'tempC'] } },
    });
  });

  it('Anthropic with native structured outputs (claude-sonnet-4-5): sends output_config.format', async () => {
    const { bodies, model } = await serve([anthropicText(ANSWER)]);
    const agent = new LLMAgent({ name: 'w', model: model('anthropic:claude-sonnet-4-5'), schema: weather });
    expect((await agent.execute({ input: 'Weather in Paris?' })).object).toEqual({ city: 'Paris', tempC: 14 });
    expect(bodies[0]?.output_config).toMatchObject({
      format: { type: 'json_schema', schema: { required: ['city', 'tempC'], additionalProperties: false } },
    });
    expect(bodies[0]?.tools).toBeUndefined();
  });

  it('Anthropic without them (claude-sonnet-4-0): a forced `json` tool, whose recorded input becomes the object', async () => {
    // anthropic-json-tool.1.json, verbatim: a real answer through the `json` tool.
    const { bodies, model } = await serve([json(fixture('anthropic/anthropic-json-tool.1.json'))]);
    const forecast = z.object({
      elements: z.array(z.object({ location: z.string(), temperature: z.number(), condition: z.string() })),
    });
    const agent = new LLMAgent({ name: 'w', model: model('anthropic:claude-sonnet-4-0'), schema: forecast });
    const result = await agent.execute({ input: 'Weather in four cities?' });
    expect(result.object?.elements.map((element) => element.location)).toEqual([
      'San Francisco',
      'London',
      'Paris',
      'Berlin',
    ]);
    expect(result.calls).toEqual([]);
    expect(bodies[0]?.tools).toEqual([expect.objectContaining({ name: 'json', input_schema: expect.any(Object) })]);
    expect(bodies[0]?.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
  });

  it('repairs an answer that fails the schema with a follow-up quoting the problems', async () => {
    // The first answer is anthropic-text.json verbatim: prose, not the JSON asked for.
    const { bodies, model } = await serve([json(fixture('anthropic/anthropic-text.json')), anthropicText(ANSWER)]);
    const agent = new LLMAgent({ name: 'w', model: model('anthropic:claude-sonnet-4-5'), schema: weather });
    const result = await agent.execute({ input: 'Weather in Paris?' });
    expect(result).toMatchObject({ finishReason: 'stop', object: { city: 'Paris', tempC: 14 } });
    expect(result.warnings).toEqual([expect.stringContaining('repair turn 1 of 1')]);
    const messages = bodies[1]?.messages as Array<{ role: string; content: Array<{ text?: string }> }>;
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    const repair = messages[2]?.content[0]?.text ?? '';
    expect(repair).toContain('- the answer is not valid JSON');
    expect(repair).toContain('"required":["city","tempC"]');
    expect(bodies[1]?.output_config).toEqual(bodies[0]?.output_config);
  });

  it('fails with structured_output_invalid naming the fields when the repair fails too', async () => {
    const { model } = await serve([responsesText('{"city": 7}'), responsesText('{"city": "Paris", "tempC": "warm"}')]);
    const agent = new LLMAgent({ name: 'w', model: model('openai:gpt-5-mini'), schema: weather });
    const result = await agent.execute({ input: 'Weather in Paris?' });
    expect(result).toMatchObject({
      finishReason: 'error',
      output: '{"city": "Paris", "tempC": "warm"}',
      error: { code: 'structured_output_invalid', message: expect.stringContaining('"tempC": Invalid input') },
    });
    expect(result.object).toBeUndefined();
  });

  it('applies the schema to the final answer of a tool loop', async () => {
    // azure-tool-call.1.json, verbatim: a recorded `weather` function call; then the answer.
    const { bodies, model } = await serve([
      json(fixture('openai-responses/azure-tool-call.1.json')),
      responsesText('{"city":"San Francisco","tempC":18}'),
    ]);
    const lookup = defineTool({
      name: 'weather',
      description: 'The weather in a location',
      input: z.object({ location: z.string() }),
      effects: 'read',
      execute: ({ location }) => ({ location, tempC: 18 }),
    });
    const agent = new LLMAgent({ name: 'w', model: model('openai:gpt-5.1'), tools: [lookup], schema: weather });
    const result = await agent.execute({ input: 'Weather in San Francisco?' });
    expect(result).toMatchObject({ finishReason: 'stop', iterations: 1, object: { city: 'San Francisco', tempC: 18 } });
    expect(result.calls.map((step) => [step.name, step.output])).toEqual([
      ['weather', { location: 'San Francisco', tempC: 18 }],
    ]);
    expect(bodies.map((body) => (body.text as { format: { type: string } }).format.type)).toEqual([
      'json_schema',
      'json_schema',
    ]);
    expect(bodies.map((body) => (body.tools as unknown[]).length)).toEqual([1, 1]);
  });
});
