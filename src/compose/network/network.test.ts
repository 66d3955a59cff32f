import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LLMAgent } from '../../agent/llm-agent.ts';
import type { AgentEvent } from '../../agent/types.ts';
import { ScriptedModel } from '../../testing/scripted-model.ts';
import { defineTool } from '../../tools/define-tool.ts';
import { requestSuspend } from '../../tools/suspend-request.ts';
import { createNetwork } from './network.ts';

const usage = (tokens: number) => ({ inputTokens: tokens - 10, outputTokens: 10 });
const call = (name: string, task: string, id = `c_${name}`) => ({
  toolCalls: [{ name, id, input: { task } }],
  usage: usage(100),
});
const answer = (text: string, tokens = 50) => ({ text, usage: usage(tokens) });

function worker(name: string, replies: ConstructorParameters<typeof ScriptedModel>[0], tools = []) {
  const model = new ScriptedModel(replies);
  return { model, agent: new LLMAgent({ name, description: `The ${name}`, model, tools }) };
}

describe('createNetwork', () => {
  it('nests a network inside a network: paths, depths and usage roll up through both levels', async () => {
    const leaf = worker('leaf', [answer('leaf done', 30)]);
    const inner = createNetwork({
      name: 'inner',
      description: 'A sub-team',
      model: new ScriptedModel([call('leaf', 'do the leaf part'), answer('inner done', 40)]),
      agents: [leaf.agent],
    });
    const outer = createNetwork({
      name: 'outer',
      model: new ScriptedModel([call('inner', 'do the inner part'), answer('all done', 60)]),
      agents: [inner],
    });
    const events: AgentEvent[] = [];
    const result = await outer.execute({ input: 'go' }, { onEvent: (event) => events.push(event) });

    expect(result.finishReason).toBe('stop');
    expect(result.output).toBe('all done');
    // outer: 100 + 60; inner: 100 + 40; leaf: 30.
    expect(result.usage.totalTokens).toBe(330);
    expect(result.calls).toEqual([
      expect.objectContaining({ type: 'agent', name: 'inner', usage: expect.objectContaining({ totalTokens: 170 }) }),
    ]);
    const starts = events.filter((event) => event.type === 'agent-start');
    expect(starts.map((event) => [event.path, event.depth, event.parentRunId])).toEqual([
      [['outer', 'inner'], 1, result.id],
      [['outer', 'inner', 'leaf'], 2, starts[0]?.runId],
    ]);
    const leafEvents = events.filter((event) => event.type === 'agent-event' && event.agent === 'leaf');
    expect(leafEvents.map((event) => event.type === 'agent-event' && event.event.type)).toContain('iteration-finish');
    expect(events.at(-1)).toEqual({ type: 'finish', result });
  });

  it('turns a failed sub-agent into a tool error the router reacts to', async () => {
    const broken = worker('broken', [{ error: new Error('provider down') }]);
    const router = new ScriptedModel([call('broken', 'try'), answer('the broken agent failed, so here is a fallback')]);
    const team = createNetwork({ name: 'team', model: router, agents: [broken.agent], modelPolicy: { maxRetries: 0 } });
    const result = await team.execute({ input: 'go' });

    expect(result.finishReason).toBe('stop');
    expect(result.calls[0]).toMatchObject({
      type: 'agent',
      name: 'broken',
      error: { message: expect.stringContaining('Agent "broken" did not finish its task') },
    });
    const toolMessage = JSON.stringify(router.calls[1]?.options.prompt.at(-1));
    expect(toolMessage).toContain('did not finish its task');
  });

  it('cancels a sub-agent mid-delegation when the caller aborts', async () => {
    const controller = new AbortController();
    const calling = Promise.withResolvers<void>();
    const subFinished = Promise.withResolvers<AgentEvent>();
    const slow = worker('slow', [
      () => {
        calling.resolve();
        return { text: 'never', delayMs: 60_000 };
      },
    ]);
    const team = createNetwork({
      name: 'team',
      model: new ScriptedModel([call('slow', 'wait')]),
      agents: [slow.agent],
    });
    const running = team.execute(
      { input: 'go' },
      { signal: controller.signal, onEvent: (event) => event.type === 'agent-finish' && subFinished.resolve(event) },
    );
    await calling.promise;
    controller.abort();

    expect((await running).finishReason).toBe('aborted');
    expect(await subFinished.promise).toMatchObject({ agent: 'slow', finishReason: 'aborted' });
    expect(slow.model.calls[0]?.options.abortSignal?.aborted).toBe(true);
  });

  it('stops every agent when the shared token budget is spent, and says so', async () => {
    const looping = new LLMAgent({
      name: 'hungry',
      description: 'Spends tokens',
      model: new ScriptedModel(() => ({ toolCalls: [{ name: 'noop', input: {} }], usage: usage(400) })),
      tools: [
        defineTool({
          name: 'noop',
          description: 'Does nothing',
          input: z.object({}),
          effects: 'read',
          execute: () => 'ok',
        }),
      ],
      maxIterations: 50,
    });
    const router = new ScriptedModel([call('hungry', 'spend'), answer('should not be asked')]);
    const team = createNetwork({ name: 'team', model: router, agents: [looping], budget: { maxTokens: 1000 } });
    const result = await team.execute({ input: 'go' });

    expect(result.finishReason).toBe('error');
    expect(result.error?.code).toBe('budget_exceeded');
    // router 100, then the sub-agent is stopped at its third 400-token call (100 + 1200 > 1000).
    expect(result.usage.totalTokens).toBe(1300);
    expect(router.calls).toHaveLength(1);
    expect(result.calls[0]).toMatchObject({ type: 'agent', error: { code: 'budget_exceeded' } });
  });

  it('suspends when a sub-agent asks for human input and resumes it with the answer', async () => {
    const ask = defineTool({
      name: 'ask_human',
      description: 'Asks a person',
      input: z.object({ question: z.string() }),
      effects: 'read',
      execute: ({ question }, context) => (context.resumeData as string | undefined) ?? requestSuspend({ question }),
    });
    const asker = worker(
      'asker',
      [{ toolCalls: [{ name: 'ask_human', input: { question: 'Which city?' } }] }, answer('Paris it is')],
      [ask] as never,
    );
    const router = new ScriptedModel([call('asker', 'find the city'), answer('The city is Paris')]);
    const team = createNetwork({ name: 'team', model: router, agents: [asker.agent] });
    const first = await team.execute({ input: 'go' });

    expect(first.finishReason).toBe('suspended');
    expect(first.suspended?.payload).toEqual({ question: 'Which city?' });
    expect(() => first.suspended?.serialize()).toThrow(/resume it with suspended.resume\(\)/);
    const events: AgentEvent[] = [];
    const resumed = await first.suspended!.resume('Paris', { onEvent: (event) => events.push(event) });

    expect(resumed.finishReason).toBe('stop');
    expect(resumed.output).toBe('The city is Paris');
    expect(resumed.calls).toEqual([expect.objectContaining({ type: 'agent', name: 'asker', output: 'Paris it is' })]);
    expect(JSON.stringify(asker.model.calls[1]?.options.prompt)).toContain('Paris');
    expect(
      events
        .filter((event) => event.type === 'agent-finish')
        .map((event) => event.type === 'agent-finish' && event.finishReason),
    ).toEqual(['stop']);
  });

  it.each([
    ['a name that is not a tool name', { name: '../../etc', description: 'x' }, /must be 1-64 letters/],
    ['a name too long', { name: 'a'.repeat(65), description: 'x' }, /must be 1-64 letters/],
    ['no description', { name: 'quiet', description: '  ' }, /needs a "description"/],
    ['a description too long', { name: 'wordy', description: 'x'.repeat(1025) }, /shorten it to 1024/],
    ['control characters', { name: 'sneaky', description: 'fine\u001b[2Jhidden' }, /control characters/],
    ["the network's own name", { name: 'team', description: 'me again' }, /used twice/],
  ])('rejects a sub-agent with %s', (_case, fields, message) => {
    const agent = {
      ...fields,
      execute: async () => {
        throw new Error('never runs');
      },
    };
    expect(() => createNetwork({ name: 'team', model: new ScriptedModel([]), agents: [agent] as never })).toThrow(
      message,
    );
  });

  it('rejects an empty team and a malformed budget', () => {
    const model = new ScriptedModel([]);
    const agent = worker('a', []).agent;
    expect(() => createNetwork({ name: 'team', model, agents: [] })).toThrow(/non-empty array/);
    expect(() => createNetwork({ name: 'team', model, agents: [agent], budget: { maxTokens: -1 } })).toThrow(
      /budget.maxTokens/,
    );
    expect(() => createNetwork({ name: 'team', model, agents: [agent], budget: { tokens: 5 } as never })).toThrow(
      /unknown "budget.tokens"/,
    );
  });
});
