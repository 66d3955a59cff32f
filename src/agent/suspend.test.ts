import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { defineTool } from '../tools/define-tool.ts';
import { requestSuspend } from '../tools/suspend-request.ts';
import { LLMAgent } from './llm-agent.ts';
import { type Processor, suspend } from './processors.ts';
import type { AgentResult } from './types.ts';

const askHuman = defineTool({
  name: 'ask_human',
  description: 'Asks the operator a question',
  input: z.object({ question: z.string() }),
  effects: 'read',
  execute: (input, context) => context.resumeData ?? requestSuspend({ question: input.question }),
});

// A processor that holds every `deploy` call for approval, then lets it through or blocks it.
const approveDeploys: Processor = {
  preTool: ({ call, resumeData }) => {
    if (call.toolName !== 'deploy') return undefined;
    if (resumeData === undefined) return suspend({ approve: call.input as never });
    return (resumeData as { approved: boolean }).approved ? undefined : { block: 'the operator said no' };
  },
};
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploys',
  input: z.object({ env: z.string() }),
  effects: 'exec',
  execute: ({ env }) => `deployed to ${env}`,
});

function suspendedOf(result: AgentResult) {
  expect(result).toMatchObject({ finishReason: 'suspended' });
  if (!result.suspended) throw new Error('expected a suspended result');
  return result.suspended;
}

describe('suspend and resume', () => {
  it('a tool suspends for human input; resume hands it the answer and the run continues', async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: 'q', name: 'ask_human', input: { question: 'Which region?' } }] },
      'Deploying to eu-west.',
    ]);
    const agent = new LLMAgent({ name: 'ops', model, tools: [askHuman] });
    const first = await agent.execute({ input: 'deploy' });
    const handle = suspendedOf(first);
    expect(handle.payload).toEqual({ question: 'Which region?' });
    expect(handle.id).toMatch(/^sus_/);
    expect(agent.suspendedRuns.snapshots).toBe(1);

    const final = await handle.resume('eu-west');
    expect(final).toMatchObject({ finishReason: 'stop', output: 'Deploying to eu-west.', id: first.id });
    expect(model.calls[1]?.options.prompt.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ toolCallId: 'q', output: { type: 'text', value: 'eu-west' } }],
    });
    expect(agent.suspendedRuns).toEqual({ snapshots: 0, bytes: 0 });
  });

  it('a preTool processor suspends for approval; resume with a decision', async () => {
    const run = async (approved: boolean) => {
      const model = new ScriptedModel([{ toolCalls: [{ name: 'deploy', input: { env: 'prod' } }] }, 'Finished.']);
      const agent = new LLMAgent({ name: 'ops', model, tools: [deploy], processors: [approveDeploys] });
      const handle = suspendedOf(await agent.execute({ input: 'ship it' }));
      expect(handle.payload).toEqual({ approve: { env: 'prod' } });
      return handle.resume({ approved });
    };
    expect((await run(true)).calls[0]).toMatchObject({ output: 'deployed to prod' });
    expect((await run(false)).calls[0]).toMatchObject({ error: { code: 'policy_denied' } });
  });

  it.each(['pre', 'post', 'postTool'] as const)(
    'a %s processor suspends and is called again with the resume data',
    async (stage) => {
      const model = new ScriptedModel([{ toolCalls: [{ name: 'deploy', input: { env: 'dev' } }] }, 'done']);
      const seen: unknown[] = [];
      const gate: Processor = {
        [stage]: ({ resumeData }: { resumeData?: unknown }) => {
          seen.push(resumeData);
          return resumeData === undefined && seen.length === 1 ? suspend({ stage }) : undefined;
        },
      };
      const agent = new LLMAgent({ name: 'ops', model, tools: [deploy], processors: [gate] });
      const handle = suspendedOf(await agent.execute({ input: 'x' }));
      expect(handle.payload).toEqual({ stage });
      const final = await handle.resume({ ok: true });
      expect(final.output).toBe('done');
      expect(seen.slice(0, 2)).toEqual([undefined, { ok: true }]);
    },
  );

  it('is single-use: a second resume fails clearly', async () => {
    const agent = new LLMAgent({
      name: 'ops',
      model: new ScriptedModel([{ toolCalls: [{ name: 'ask_human', input: { question: '?' } }] }, 'ok']),
      tools: [askHuman],
    });
    const handle = suspendedOf(await agent.execute({ input: 'x' }));
    await handle.resume('yes');
    await expect(handle.resume('again')).rejects.toMatchObject({ code: 'suspension_used' });
    const other = suspendedOf(
      await new LLMAgent({
        name: 'ops',
        model: new ScriptedModel([{ toolCalls: [{ name: 'ask_human', input: { question: '?' } }] }]),
        tools: [askHuman],
      }).execute({
        input: 'x',
      }),
    );
    other.release();
    await expect(other.resume('late')).rejects.toMatchObject({ code: 'suspension_used' });
  });

  it('expires after its TTL and frees its budget', async () => {
    let now = 1_000_000;
    const agent = new LLMAgent({
      name: 'ops',
      model: new ScriptedModel([{ toolCalls: [{ name: 'ask_human', input: { question: '?' } }] }]),
      tools: [askHuman],
      suspendTtlMs: 60_000,
      deps: { now: () => now },
    });
    const handle = suspendedOf(await agent.execute({ input: 'x' }));
    expect(handle.expiresAt).toBe(new Date(1_060_000).toISOString());
    now += 60_001;
    await expect(handle.resume('too late')).rejects.toMatchObject({ code: 'suspension_expired' });
    expect(agent.suspendedRuns.snapshots).toBe(0);
  });

  it('expires by timer too, without a resume attempt', async () => {
    const agent = new LLMAgent({
      name: 'ops',
      model: new ScriptedModel([{ toolCalls: [{ name: 'ask_human', input: { question: '?' } }] }]),
      tools: [askHuman],
      suspendTtlMs: 20,
    });
    const handle = suspendedOf(await agent.execute({ input: 'x' }));
    expect(agent.suspendedRuns.snapshots).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(agent.suspendedRuns.snapshots).toBe(0);
    await expect(handle.resume('x')).rejects.toMatchObject({ code: 'suspension_expired' });
  });

  it('caps suspended snapshots by count and by bytes', async () => {
    const script = () =>
      new ScriptedModel(() => ({ toolCalls: [{ name: 'ask_human', input: { question: 'q'.repeat(2_000) } }] }));
    const byCount = new LLMAgent({
      name: 'ops',
      model: script(),
      tools: [askHuman],
      suspendBudget: { maxSnapshots: 2 },
    });
    await byCount.execute({ input: 'a' });
    await byCount.execute({ input: 'b' });
    const third = await byCount.execute({ input: 'c' });
    expect(third).toMatchObject({ finishReason: 'error', error: { code: 'suspend_budget_exceeded' } });
    expect(third.error?.message).toMatch(/already holds 2 suspended run\(s\)/);
    const byBytes = new LLMAgent({
      name: 'ops',
      model: script(),
      tools: [askHuman],
      suspendBudget: { maxBytes: 3_000 },
    });
    expect((await byBytes.execute({ input: 'a' })).error?.code).toBe('suspend_budget_exceeded');
  });

  it('serializes to versioned JSON that a new agent instance resumes', async () => {
    const script = [{ toolCalls: [{ id: 'q', name: 'ask_human', input: { question: 'Region?' } }] }, 'Using us-east.'];
    const first = new LLMAgent({ name: 'ops', model: new ScriptedModel(script), tools: [askHuman] });
    const handle = suspendedOf(await first.execute({ input: 'deploy', context: { userId: 'u1' } }));
    const json = JSON.stringify(handle.serialize());
    expect(JSON.parse(json)).toMatchObject({
      schema: 'agency.suspended-run.v1',
      agent: 'ops',
      payload: { question: 'Region?' },
    });

    const replayModel = new ScriptedModel(script.slice(1));
    const second = new LLMAgent({ name: 'ops', model: replayModel, tools: [askHuman] });
    const final = await second.resumeSerialized(JSON.parse(json), 'us-east');
    expect(final).toMatchObject({ finishReason: 'stop', output: 'Using us-east.' });
    expect(replayModel.calls[0]?.options.prompt.at(-1)).toMatchObject({ content: [{ output: { value: 'us-east' } }] });
  });

  it('refuses a malformed or foreign serialized run', async () => {
    const agent = new LLMAgent({ name: 'ops', model: new ScriptedModel([]) });
    await expect(agent.resumeSerialized({ schema: 'other.v9' })).rejects.toMatchObject({
      code: 'suspension_invalid',
      message: expect.stringContaining('schema'),
    });
    const foreign = { schema: 'agency.suspended-run.v1', agent: 'billing', suspendedAt: 'x', payload: null, state: {} };
    await expect(agent.resumeSerialized(foreign)).rejects.toMatchObject({
      message: expect.stringContaining('belongs to agent "billing"'),
    });
  });
});
