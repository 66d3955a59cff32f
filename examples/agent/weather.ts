// A tool-calling agent, run offline from a recorded cassette:
//   node examples/agent/weather.ts
// Re-record the cassette against a real model (needs the provider's API key):
//   AGENCY_RECORD_MODEL=openai:gpt-4o node examples/agent/weather.ts
import { join } from 'node:path';
import { resolveModel } from '../../src/index.ts';
import { recordModel, replayModel } from '../../src/testing/index.ts';
import { weatherAgent } from './agents.ts';

const cassette = join(import.meta.dirname, 'weather.cassette.jsonl');
const recordWith = process.env.AGENCY_RECORD_MODEL;
const model = recordWith ? recordModel(resolveModel(recordWith), cassette) : replayModel(cassette);

const agent = weatherAgent(model);

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
