import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { z } from 'zod';
import { LLMAgent } from '../../src/agent/llm-agent.ts';
import type { Agent, AgentEvent, WorkflowEvent } from '../../src/agent/types.ts';
import { resumeWorkflow, runWorkflow } from '../../src/compose/workflow/durable-run.ts';
import { createWorkflow } from '../../src/compose/workflow/workflow.ts';
import { replayModel } from '../../src/model/cassette/replay-model.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { defineTool } from '../../src/tools/define-tool.ts';

// The two agents of examples/agent, replaying the model calls recorded there (gpt-4o).
const examples = join(import.meta.dirname, '../../examples/agent');

function weatherAgent() {
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
    model: replayModel(join(examples, 'weather.cassette.jsonl')),
    instructions: 'You are a concise travel assistant. Use tools for facts; never guess the weather.',
    tools: [weather],
    temperature: 0,
  });
  // Recorded streaming (the example streams), so replayed streaming: an agent that runs by streaming.
  const streamed: Agent = {
    name: agent.name,
    description: agent.description,
    async execute(task, { onEvent, ...options } = {}) {
      const stream = agent.stream(task, options);
      for await (const event of stream) onEvent?.(event);
      return stream.result;
    },
  };
  return streamed;
}

function triageAgent() {
  const getAccount = defineTool({
    name: 'get_account',
    description: 'The customer account for an email address',
    input: z.object({ email: z.string() }),
    effects: 'read',
    execute: ({ email }) => (email === 'ada@example.com' ? { plan: 'team', invoicesThisMonth: 2 } : { error: 'none' }),
  });
  return new LLMAgent({
    name: 'triage',
    model: replayModel(join(examples, 'triage.cassette.jsonl')),
    instructions: 'You triage support tickets. Look up the account before you judge a billing ticket.',
    tools: [getAccount],
    schema: z.object({
      category: z.enum(['billing', 'bug', 'how-to']),
      urgency: z.enum(['low', 'normal', 'high']),
      summary: z.string().describe('One sentence for the support queue'),
    }),
    schemaName: 'ticket',
    temperature: 0,
  });
}

function desk() {
  return createWorkflow({
    name: 'desk',
    steps: [
      { id: 'intake', run: ({ input }) => ({ from: 'ada@example.com', text: input }) },
      {
        id: 'weather',
        agent: weatherAgent(),
        dependsOn: ['intake'],
        input: () => 'Should I pack an umbrella for Paris or Lisbon this weekend?',
      },
      {
        id: 'triage',
        agent: triageAgent(),
        dependsOn: ['intake'],
        input: ({ outputs }) => {
          const { from, text } = outputs.intake as { from: string; text: string };
          return `From ${from}: ${text}`;
        },
      },
      {
        id: 'approve',
        dependsOn: ['weather', 'triage'],
        run: ({ outputs, resumeData, suspend }) =>
          resumeData ?? suspend({ question: 'Send this reply?', ticket: outputs.triage ?? null }),
      },
      {
        id: 'reply',
        dependsOn: ['approve'],
        run: ({ outputs }) => `${(outputs.approve as { by: string }).by} approved: ${String(outputs.weather)}`,
      },
    ],
  });
}

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'agency-wf-cassette-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

it('runs agent branches side by side from cassettes, suspends, and resumes with input', async () => {
  const events: AgentEvent[] = [];
  const first = await runWorkflow(
    desk(),
    { input: 'I was charged twice this month!' },
    { root, onEvent: (event) => events.push(event) },
  );
  expect(first.error).toBeUndefined();
  expect(first.finishReason).toBe('suspended');
  expect(first.suspended?.payload).toEqual({
    question: 'Send this reply?',
    ticket: { category: 'billing', urgency: expect.any(String), summary: expect.any(String) },
  });

  // The branches overlap: each started before the other finished.
  const at = (type: WorkflowEvent['type'], step: string) =>
    events.findIndex((event) => event.type === type && 'step' in event && event.step === step);
  expect(at('workflow-step-start', 'weather')).toBeLessThan(at('workflow-step-finish', 'triage'));
  expect(at('workflow-step-start', 'triage')).toBeLessThan(at('workflow-step-finish', 'weather'));
  // The agents' own events arrive nested under their steps, tool calls included.
  const nested = events.flatMap((event) =>
    event.type === 'workflow-step-event' ? [`${event.step}:${event.event.type}`] : [],
  );
  expect(nested).toEqual(expect.arrayContaining(['weather:tool-call-start', 'triage:tool-call-result']));
  const finishes = events.filter(
    (event): event is Extract<WorkflowEvent, { type: 'workflow-step-finish' }> => event.type === 'workflow-step-finish',
  );
  const weather = finishes.find((event) => event.step === 'weather');
  expect(weather?.usage.totalTokens).toBeGreaterThan(0);
  expect(first.usage.totalTokens).toBe(finishes.reduce((sum, event) => sum + event.usage.totalTokens, 0));

  // Resumed with fresh agents, as another process would build them: the agent steps are not run again.
  const later: AgentEvent[] = [];
  const done = await resumeWorkflow(desk(), { root, input: { by: 'ops' }, onEvent: (event) => later.push(event) });
  expect(done.finishReason).toBe('stop');
  expect(done.calls.map((call) => call.name)).toEqual(['approve', 'reply']);
  expect(done.output).toMatch(/^ops approved: .*umbrella/is);
  expect(later.some((event) => event.type === 'workflow-step-event')).toBe(false);

  const { frames } = await readJournal(join(root, 'progress', 'events.ndjson'));
  const weatherFinish = frames.find((frame) => frame.type === 'phase.finish' && frame.step === 'weather');
  expect(weatherFinish?.step_kind).toBe('agent');
  expect(weatherFinish?.data?.usage).toMatchObject({ total_tokens: weather?.usage.totalTokens });
});
