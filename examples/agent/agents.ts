// The example agents, built on any model: weather.ts and triage.ts run them from their cassettes, and the workflow
// tests use the same agents as steps.
import { z } from 'zod';
import { defineTool, LLMAgent, type ModelInput } from '../../src/index.ts';

// A deterministic stand-in for a weather API.
const forecasts: Record<string, { tempC: number; sky: string }> = {
  paris: { tempC: 14, sky: 'light rain' },
  lisbon: { tempC: 21, sky: 'sunny' },
};

/** A travel assistant with one tool, `get_weather`. */
export function weatherAgent(model: ModelInput) {
  const weather = defineTool({
    name: 'get_weather',
    description: 'Current weather for a city',
    input: z.object({ city: z.string().describe('City name, e.g. "Paris"') }),
    effects: 'network',
    idempotent: true,
    execute: ({ city }) => forecasts[city.toLowerCase()] ?? { error: `no forecast for ${city}` },
  });
  return new LLMAgent({
    name: 'weather',
    model,
    instructions: 'You are a concise travel assistant. Use tools for facts; never guess the weather.',
    tools: [weather],
    temperature: 0,
  });
}

// A deterministic stand-in for a customer database.
const accounts: Record<string, { plan: string; invoicesThisMonth: number }> = {
  'ada@example.com': { plan: 'team', invoicesThisMonth: 2 },
};

const ticket = z.object({
  category: z.enum(['billing', 'bug', 'how-to']),
  urgency: z.enum(['low', 'normal', 'high']),
  summary: z.string().describe('One sentence for the support queue'),
});

/** A support triage agent that looks up the account, then answers a typed `ticket`. */
export function triageAgent(model: ModelInput) {
  const getAccount = defineTool({
    name: 'get_account',
    description: 'The customer account for an email address',
    input: z.object({ email: z.string() }),
    effects: 'read',
    execute: ({ email }) => accounts[email] ?? { error: `no account for ${email}` },
  });
  return new LLMAgent({
    name: 'triage',
    model,
    instructions: 'You triage support tickets. Look up the account before you judge a billing ticket.',
    tools: [getAccount],
    schema: ticket,
    schemaName: 'ticket',
    temperature: 0,
  });
}
