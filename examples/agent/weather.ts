// A tool-calling agent, run offline from a recorded cassette:
//   node examples/agent/weather.ts
// Re-record the cassette against a real model (needs the provider's API key):
//   AGENCY_RECORD_MODEL=openai:gpt-4o node examples/agent/weather.ts
import { join } from 'node:path';
import { z } from 'zod';
import { defineTool, LLMAgent, resolveModel } from '../../src/index.ts';
import { recordModel, replayModel } from '../../src/testing/index.ts';

const cassette = join(import.meta.dirname, 'weather.cassette.jsonl');
const recordWith = process.env.AGENCY_RECORD_MODEL;
const model = recordWith ? recordModel(resolveModel(recordWith), cassette) : replayModel(cassette);

// A deterministic stand-in for a weather API.
const forecasts: Record<string, { tempC: number; sky: string }> = {
  paris: { tempC: 14, sky: 'light rain' },
  lisbon: { tempC: 21, sky: 'sunny' },
};

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  input: z.object({ city: z.string().describe('City name, e.g. "Paris"') }),
  effects: 'network',
  idempotent: true,
  execute: ({ city }) => forecasts[city.toLowerCase()] ?? { error: `no forecast for ${city}` },
});

const agent = new LLMAgent({
  name: 'weather',
  model,
  instructions: 'You are a concise travel assistant. Use tools for facts; never guess the weather.',
  tools: [weather],
  temperature: 0,
});

for await (const event of agent.stream({ input: 'Should I pack an umbrella for Paris or Lisbon this weekend?' })) {
  if (event.type === 'tool-call-start') console.log(`\n→ ${event.toolName}(${JSON.stringify(event.input)})`);
  if (event.type === 'tool-call-result') console.log(`← ${JSON.stringify(event.output)}`);
  if (event.type === 'text-delta') process.stdout.write(event.delta);
  if (event.type === 'finish') {
    const { usage, iterations, calls } = event.result;
    console.log(
      `\n\n${iterations} tool iteration(s), ${calls.length} tool call(s), ${usage.totalTokens} tokens, $${usage.costUsd?.toFixed(6) ?? '?'}`,
    );
  }
}
