// A structured answer after a tool call, run offline from a recorded cassette:
//   node examples/agent/triage.ts
// Re-record the cassette against a real model (needs the provider's API key):
//   AGENCY_RECORD_MODEL=openai:gpt-4o node examples/agent/triage.ts
import { join } from 'node:path';
import { z } from 'zod';
import { defineTool, LLMAgent, resolveModel } from '../../src/index.ts';
import { recordModel, replayModel } from '../../src/testing/index.ts';

const cassette = join(import.meta.dirname, 'triage.cassette.jsonl');
const recordWith = process.env.AGENCY_RECORD_MODEL;
const model = recordWith ? recordModel(resolveModel(recordWith), cassette) : replayModel(cassette);

// A deterministic stand-in for a customer database.
const accounts: Record<string, { plan: string; invoicesThisMonth: number }> = {
  'ada@example.com': { plan: 'team', invoicesThisMonth: 2 },
};

const getAccount = defineTool({
  name: 'get_account',
  description: 'The customer account for an email address',
  input: z.object({ email: z.string() }),
  effects: 'read',
  execute: ({ email }) => accounts[email] ?? { error: `no account for ${email}` },
});

const ticket = z.object({
  category: z.enum(['billing', 'bug', 'how-to']),
  urgency: z.enum(['low', 'normal', 'high']),
  summary: z.string().describe('One sentence for the support queue'),
});

const agent = new LLMAgent({
  name: 'triage',
  model,
  instructions: 'You triage support tickets. Look up the account before you judge a billing ticket.',
  tools: [getAccount],
  schema: ticket,
  schemaName: 'ticket',
  temperature: 0,
});

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
