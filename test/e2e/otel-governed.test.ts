// OpenTelemetry for a governed task: the span tree of a Gather → Plan → Approve → Act → Verify run with the GenAI
// conventions' attribute names, the metrics counters it moves, and a credential canary that must appear in no span.
import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/redact.ts';
import { configureTelemetry } from '../../src/obs/telemetry.ts';
import { createRunner } from '../../src/task/runner.ts';
import { canarySpellings } from '../support/canary-scan.ts';
import { fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';
import { installTelemetry, parentOf, spanNamed, spanNames, type TestTelemetry } from '../support/telemetry.ts';

let telemetry: TestTelemetry;
beforeAll(() => {
  telemetry = installTelemetry();
});
afterEach(() => {
  telemetry.reset();
  configureTelemetry({});
});
afterAll(() => telemetry.uninstall());

const LOOP = 'gather-plan-act-verify';

async function governedRun(model = phaseModel(), redactor = createRedactor()) {
  const root = await makeTaskFolder();
  const runner = createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto', redactor });
  return runner.doTask(root);
}

function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  return spans.filter((span) => parentOf(spans, span) === parent);
}

describe('spans of a governed task', () => {
  it('nest task → phase → step → agent run → model and tool calls, with the conventions’ attribute names', async () => {
    const result = await governedRun();
    expect(result.finishReason).toBe('completed');
    const spans = telemetry.spans();

    const task = spanNamed(spans, `invoke_workflow ${LOOP}`);
    expect(task.parentSpanContext).toBeUndefined();
    expect(task.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.workflow.name': LOOP,
      'agency.task.id': result.taskId,
      'agency.finish_reason': 'completed',
      'gen_ai.usage.input_tokens': result.usage.inputTokens,
      'gen_ai.usage.output_tokens': result.usage.outputTokens,
    });
    const phases = childrenOf(spans, task);
    expect(phases.map((span) => span.name).sort()).toEqual(
      ['phase act', 'phase approve', 'phase gather', 'phase plan', 'phase verify'].sort(),
    );
    for (const phase of phases)
      expect(phase.attributes).toEqual({
        'agency.phase': phase.name.slice('phase '.length),
        'agency.task.id': result.taskId,
      });

    const gatherSteps = childrenOf(spans, spanNamed(spans, 'phase gather'));
    expect(gatherSteps.map((span) => span.name)).toEqual(['step 0001-gather', 'step 0002-record-findings']);
    expect(gatherSteps[0]?.attributes).toEqual({
      'agency.step.id': '0001-gather',
      'agency.step.kind': 'agent',
      'agency.task.id': result.taskId,
    });

    const actStep = childrenOf(spans, spanNamed(spans, 'phase act'))[0] as ReadableSpan;
    const [actAgent] = childrenOf(spans, actStep);
    expect(actAgent?.name).toBe('invoke_agent governed-task');
    expect(actAgent?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'governed-task',
      'agency.finish_reason': 'stop',
    });
    const actCalls = childrenOf(spans, actAgent as ReadableSpan);
    expect(actCalls.map((span) => span.name)).toEqual([
      'chat gpt-4o-mini',
      'execute_tool write_artifact',
      'chat gpt-4o-mini',
    ]);
    expect(actCalls[0]?.kind).toBe(SpanKind.CLIENT);
    expect(actCalls[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.request.max_tokens': 2048,
      'gen_ai.response.model': 'gpt-4o-mini',
      'gen_ai.response.finish_reasons': ['tool-calls'],
      'gen_ai.usage.input_tokens': 450,
      'gen_ai.usage.output_tokens': 30,
    });
    expect(actCalls[1]?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'write_artifact',
      'gen_ai.tool.call.id': 'w1',
      'gen_ai.tool.type': 'function',
    });
    // One trace; every span but the task's has its parent among the spans.
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    for (const span of spans) if (span !== task) expect(parentOf(spans, span), span.name).toBeDefined();
    // Nothing of the content without the opt-in.
    expect(JSON.stringify(spans.map((span) => span.attributes)), spanNames(spans)).not.toContain('summar');
  });

  it('a failed run marks the task span with its reason and error.type', async () => {
    const broken = phaseModel({
      plan: () => ({ error: Object.assign(new Error('bad request'), { statusCode: 400 }) }),
    });
    const result = await governedRun(broken);
    expect(result.finishReason).toBe('error');
    const task = spanNamed(telemetry.spans(), `invoke_workflow ${LOOP}`);
    expect(task.status.code).toBe(2);
    expect(task.attributes).toMatchObject({ 'agency.finish_reason': 'error', 'error.type': result.error?.code });
  });
});

describe('metrics of a governed task', () => {
  it('counts phases, approvals and how runs ended, and records tokens and cost by model', async () => {
    const result = await governedRun();
    const phases = await telemetry.points('agent.phase');
    const byPhase = Object.fromEntries(phases.map((point) => [point.attributes['agency.phase'], point.value]));
    expect(byPhase).toMatchObject({ gather: 1, plan: 1, approve: 1, act: 1, verify: 1 });

    const approvals = await telemetry.points('agent.approval');
    expect(approvals.map((point) => [point.attributes, point.value])).toContainEqual([
      { 'agency.approval.outcome': 'approved', 'agency.approval.type': 'plan' },
      expect.any(Number),
    ]);

    const finishes = await telemetry.points('agent.finish_reason');
    const tasks = finishes.find((point) => point.attributes['agency.run.kind'] === 'task');
    expect(tasks?.attributes).toEqual({
      'agency.run.kind': 'task',
      'gen_ai.workflow.name': LOOP,
      'agency.finish_reason': 'completed',
    });
    const agents = finishes.find((point) => point.attributes['agency.run.kind'] === 'agent');
    expect(agents?.attributes['agency.finish_reason']).toBe('stop');

    const tokens = await telemetry.points('gen_ai.client.token.usage');
    const sums = Object.fromEntries(
      tokens.map((point) => [point.attributes['gen_ai.token.type'], (point.value as { sum: number }).sum]),
    );
    expect(sums).toEqual({ input: result.usage.inputTokens, output: result.usage.outputTokens });
    expect(tokens[0]?.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.model': 'gpt-4o-mini',
      'gen_ai.token.type': 'input',
    });
    const cost = await telemetry.points('agency.client.cost');
    expect(cost).toHaveLength(1);
    expect(cost[0]?.attributes).toEqual({ 'gen_ai.response.model': 'gpt-4o-mini' });
    expect(cost[0]?.value).toBeCloseTo(result.usage.costUsd ?? Number.NaN, 10);
  });
});

describe('secrets canary in spans', () => {
  it('with content recorded, no spelling and no 10 characters of a credential reach any span', async () => {
    const canary = `canary/${randomBytes(8).toString('hex')}+${randomBytes(8).toString('hex')}=`;
    const redactor = createRedactor();
    redactor.register(canary);
    configureTelemetry({ captureContent: true });
    const model = phaseModel({
      gather: () => ({ text: `- The deploy token is ${canary} (task/brief.md).` }),
      act: (options) =>
        options.prompt.at(-1)?.role === 'tool'
          ? { text: `Done; token ${canary} accepted.` }
          : {
              toolCalls: [{ id: 'w1', name: 'write_artifact', input: { name: 'summary.md', text: `token ${canary}` } }],
            },
    });
    const result = await governedRun(model, redactor);
    expect(result.finishReason).toBe('completed');
    const spans = telemetry.spans();
    const recorded = JSON.stringify(
      spans.map((span) => ({ name: span.name, attributes: span.attributes, status: span.status, events: span.events })),
    );
    // Content really was recorded, redacted, where the canary passed.
    expect(recorded).toContain('The deploy token is [REDACTED]');
    expect(recorded).toContain('gen_ai.tool.call.arguments');
    const hits = canarySpellings(canary).filter(([, spelled]) => recorded.includes(spelled));
    expect(hits.map(([name]) => name)).toEqual([]);
  });
});
