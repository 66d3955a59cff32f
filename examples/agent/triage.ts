// A structured answer after a tool call, run offline from a recorded cassette:
//   node examples/agent/triage.ts
// Re-record the cassette against a real model (needs the provider's API key):
//   AGENCY_RECORD_MODEL=openai:gpt-4o node examples/agent/triage.ts
import { join } from 'node:path';
import { resolveModel } from '../../src/index.ts';
import { recordModel, replayModel } from '../../src/testing/index.ts';
import { triageAgent } from './agents.ts';

const cassette = join(import.meta.dirname, 'triage.cassette.jsonl');
const recordWith = process.env.AGENCY_RECORD_MODEL;
const model = recordWith ? recordModel(resolveModel(recordWith), cassette) : replayModel(cassette);

const agent = triageAgent(model);

const result = await agent.execute({ input: 'From ada@example.com: I was charged twice this month!' });
if (result.object) {
  // result.object is typed from the schema: { category: 'billing' | 'bug' | 'how-to'; urgency: …; summary: string }
  const { category, urgency, summary } = result.object;
  console.log(`${category} / ${urgency}: ${summary}`);
} else {
  console.log(`No valid answer: ${result.error?.code}: ${result.error?.message}`);
}
console.log(
  `${result.calls.length} tool call(s), ${result.usage.totalTokens} tokens, $${result.usage.costUsd?.toFixed(6) ?? '?'}`,
);
