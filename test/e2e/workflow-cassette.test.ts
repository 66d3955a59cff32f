import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AgentEvent, WorkflowEvent } from '../../src/agent/types.ts';
import { resumeWorkflow, runWorkflow } from '../../src/compose/workflow/durable-run.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { desk } from '../support/workflow-desk.ts';

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
