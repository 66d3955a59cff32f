import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { defineTool } from '../tools/define-tool.ts';
import { createToolRegistry } from '../tools/tool-registry.ts';
import { LLMAgent } from './llm-agent.ts';
import { expandPlans, isPlanTool, MAX_PLAN_CALLS, PLAN_TOOL_NAME, planExecutionTool } from './plan-execution.ts';
import { type Processor, suspend } from './processors.ts';
import type { AgentEvent } from './types.ts';

const ran: string[] = [];
const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  effects: 'read',
  execute: ({ a, b }) => {
    ran.push(`add ${a} ${b}`);
    return a + b;
  },
});
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys',
  input: z.object({ env: z.string() }),
  effects: 'exec',
  execute: ({ env }) => {
    ran.push(`deploy ${env}`);
    return `deployed to ${env}`;
  },
});

const plan = (id: string, calls: unknown[]) => ({ toolCalls: [{ id, name: PLAN_TOOL_NAME, input: { calls } }] });

// The tool message the model got back after its first turn.
function planResult(model: ScriptedModel, call = 1) {
  const last = model.calls[call]?.options.prompt.at(-1);
  expect(last).toMatchObject({ role: 'tool' });
  return last as { content: Array<{ toolCallId: string; toolName: string; output: { type: string; value: unknown } }> };
}

describe('execute_plan', () => {
  it('runs each call of a plan as a tool call of its own and returns their results together, in order', async () => {
    ran.length = 0;
    const model = new ScriptedModel([
      plan('p1', [
        { tool: 'add', input: { a: 1, b: 2 } },
        { tool: 'multiply', input: { a: 2 } },
        { tool: 'add', input: { a: 'one' } },
        { tool: 'add', input: { a: 5, b: 5 } },
      ]),
      'Done.',
    ]);
    const events: AgentEvent[] = [];
    const agent = new LLMAgent({ name: 'calc', model, tools: [add], planExecution: true });
    const result = await agent.execute({ input: 'sums' }, { onEvent: (event) => events.push(event) });

    expect(result).toMatchObject({ finishReason: 'stop', output: 'Done.' });
    expect(ran).toEqual(['add 1 2', 'add 5 5']);
    expect(model.calls[0]?.options.tools?.map((tool) => tool.name)).toEqual(['add', PLAN_TOOL_NAME]);
    const starts = events.filter((event) => event.type === 'tool-call-start');
    expect(starts.map((event) => [event.toolCallId, event.toolName])).toEqual([
      ['p1:1', 'add'],
      ['p1:2', 'multiply'],
      ['p1:3', 'add'],
      ['p1:4', 'add'],
    ]);
    // Each call is recorded as a call of its own; the plan is not a call.
    expect(result.calls.flatMap((call) => (call.type === 'tool' ? [call.toolCallId] : [])).sort()).toEqual([
      'p1:1',
      'p1:2',
      'p1:3',
      'p1:4',
    ]);
    const message = planResult(model);
    expect(message.content).toHaveLength(1);
    expect(message.content[0]).toMatchObject({ toolCallId: 'p1', toolName: PLAN_TOOL_NAME });
    const { results } = message.content[0]?.output.value as { results: Array<Record<string, unknown>> };
    expect(results[0]).toEqual({ tool: 'add', ok: true, output: 3 });
    expect(results[1]).toMatchObject({ tool: 'multiply', ok: false, error: expect.stringContaining('Unknown tool') });
    expect(results[2]).toMatchObject({ tool: 'add', ok: false, error: expect.stringContaining('b: ') });
    expect(results[3]).toEqual({ tool: 'add', ok: true, output: 10 });
  });

  it('puts every call of a plan through the processors: a blocked call does not run, the rest do', async () => {
    ran.length = 0;
    const noDeploys: Processor = {
      preTool: ({ call }) => (call.toolName === 'deploy' ? { block: 'deploys are not allowed' } : undefined),
    };
    const model = new ScriptedModel([
      plan('p', [
        { tool: 'deploy', input: { env: 'prod' } },
        { tool: 'add', input: { a: 1, b: 1 } },
      ]),
      'Ok.',
    ]);
    const agent = new LLMAgent({
      name: 'ops',
      model,
      tools: [add, deploy],
      processors: [noDeploys],
      planExecution: true,
    });
    await agent.execute({ input: 'go' });
    expect(ran).toEqual(['add 1 1']);
    const { results } = planResult(model).content[0]?.output.value as { results: Array<Record<string, unknown>> };
    expect(results[0]).toMatchObject({ tool: 'deploy', ok: false, error: expect.stringContaining('not allowed') });
    expect(results[1]).toEqual({ tool: 'add', ok: true, output: 2 });
  });

  it('a call of a plan held for approval suspends the run; after a serialized resume the plan finishes', async () => {
    ran.length = 0;
    const approveDeploys: Processor = {
      preTool: ({ call, resumeData }) => {
        if (call.toolName !== 'deploy') return undefined;
        if (resumeData === undefined) return suspend({ approve: call.toolCallId });
        return (resumeData as { approved: boolean }).approved ? undefined : { block: 'the operator said no' };
      },
    };
    const script = [
      plan('p', [
        { tool: 'add', input: { a: 2, b: 2 } },
        { tool: 'deploy', input: { env: 'eu' } },
      ]),
      'Shipped.',
    ];
    const options = { name: 'ops', tools: [add, deploy], processors: [approveDeploys], planExecution: true };
    const first = await new LLMAgent({ ...options, model: new ScriptedModel(script) }).execute({ input: 'ship' });
    expect(first).toMatchObject({ finishReason: 'suspended', suspended: { payload: { approve: 'p:2' } } });
    expect(ran).toEqual([]);

    // Another process: the same agent resumes the serialized run.
    const model = new ScriptedModel(script.slice(1));
    const serialized = JSON.parse(JSON.stringify(first.suspended?.serialize())) as unknown;
    const final = await new LLMAgent({ ...options, model }).resumeSerialized(serialized, { approved: true });
    expect(final).toMatchObject({ finishReason: 'stop', output: 'Shipped.' });
    expect(ran).toEqual(['add 2 2', 'deploy eu']);
    const { results } = planResult(model, 0).content[0]?.output.value as { results: unknown[] };
    expect(results).toEqual([
      { tool: 'add', ok: true, output: 4 },
      { tool: 'deploy', ok: true, output: 'deployed to eu' },
    ]);
  });

  it('a plan that is not valid, or a plan inside a plan, comes back as an error the model can fix', async () => {
    ran.length = 0;
    const tooMany = Array.from({ length: MAX_PLAN_CALLS + 1 }, () => ({ tool: 'add', input: { a: 1, b: 1 } }));
    const model = new ScriptedModel([
      plan('empty', []),
      plan('big', tooMany),
      plan('nested', [{ tool: PLAN_TOOL_NAME, input: { calls: [{ tool: 'add', input: { a: 1, b: 1 } }] } }]),
      'Gave up.',
    ]);
    const agent = new LLMAgent({ name: 'calc', model, tools: [add], planExecution: true, maxIterations: 5 });
    await agent.execute({ input: 'x' });
    expect(ran).toEqual([]);
    expect(planResult(model, 1).content[0]).toMatchObject({
      toolCallId: 'empty',
      output: { type: 'error-text', value: expect.stringContaining('calls: ') },
    });
    expect(planResult(model, 2).content[0]?.output.value).toEqual(
      expect.stringContaining(`calls: Too big: expected array to have <=${MAX_PLAN_CALLS} items`),
    );
    const nested = planResult(model, 3).content[0]?.output.value as { results: Array<Record<string, unknown>> };
    expect(nested.results[0]).toMatchObject({ ok: false, error: expect.stringContaining('runs only inside') });
  });

  it('is offered only when asked for, and a tool of that name is a clash', async () => {
    const model = new ScriptedModel(['Hi.']);
    await new LLMAgent({ name: 'a', model, tools: [add] }).execute({ input: 'x' });
    expect(model.calls[0]?.options.tools?.map((tool) => tool.name)).toEqual(['add']);
    expect(() => new LLMAgent({ name: 'b', model, tools: [planExecutionTool()], planExecution: true })).toThrow(
      /Two tools are named "execute_plan"/,
    );
  });

  it('expands only the plan tool itself, never a tool of the user that shares its name', async () => {
    const own = defineTool({
      name: PLAN_TOOL_NAME,
      description: "The user's own tool of that name",
      input: z.object({ calls: z.array(z.unknown()) }),
      effects: 'read',
      execute: ({ calls }) => `mine: ${calls.length}`,
    });
    const model = new ScriptedModel([plan('c', [{ tool: 'add', input: { a: 1, b: 1 } }]), 'Ok.']);
    await new LLMAgent({ name: 'a', model, tools: [add, own] }).execute({ input: 'x' });
    expect(planResult(model).content[0]).toMatchObject({ toolCallId: 'c', output: { value: 'mine: 1' } });

    const registry = createToolRegistry([add, planExecutionTool()]);
    const call = { type: 'tool-call' as const, toolCallId: 'c', toolName: PLAN_TOOL_NAME, input: {} };
    const expanded = expandPlans([{ ...call, input: { calls: [{ tool: 'add' }] } }], (name) =>
      isPlanTool(registry.get(name)),
    );
    expect(expanded).toEqual({
      calls: [{ type: 'tool-call', toolCallId: 'c:1', toolName: 'add', input: {} }],
      plans: [{ toolCallId: 'c', first: 0, count: 1 }],
    });
  });
});
