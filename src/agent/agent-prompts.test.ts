import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BUILTIN_PROMPTS } from '../prompts/builtin-prompts.ts';
import { createInMemoryPromptStore } from '../prompts/in-memory-prompt-store.ts';
import { resolvePromptSet } from '../prompts/prompt-set.ts';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { defineTool } from '../tools/define-tool.ts';
import { LLMAgent } from './llm-agent.ts';
import type { AgentEvent } from './types.ts';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  input: z.object({ a: z.number(), b: z.number() }),
  effects: 'read',
  execute: ({ a, b }) => a + b,
});

// The agent's own prompts at version 2, over the built-in ones.
async function agentPrompts() {
  const store = createInMemoryPromptStore({ templates: BUILTIN_PROMPTS });
  await store.put({ id: 'agent.synthesis', text: 'Stop now and answer.', createdBy: 'ops' });
  await store.put({ id: 'agent.repair', text: 'Fix: {{issues}} / {{schema}}', createdBy: 'ops' });
  return resolvePromptSet(store, { ids: ['agent.synthesis', 'agent.repair', 'agent.compress'] });
}

describe("LLMAgent's own prompts", () => {
  it('asks for its synthesis with the version it is given, and names it with the call', async () => {
    const model = new ScriptedModel((_options, index) =>
      index < 2 ? { toolCalls: [{ name: 'add', input: { a: index, b: 1 } }] } : 'Done.',
    );
    const events: AgentEvent[] = [];
    const agent = new LLMAgent({ name: 'a', model, tools: [add], maxIterations: 2, prompts: await agentPrompts() });
    await agent.execute({ input: 'go' }, { promptRefs: ['task.ask@4'], onEvent: (event) => events.push(event) });
    const last = model.calls[2]?.options;
    expect(last?.prompt.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'Stop now and answer.' }] });
    expect(last?.providerOptions).toEqual({ agency: { prompts: ['task.ask@4', 'agent.synthesis@2'] } });
    expect(model.calls[0]?.options.providerOptions).toEqual({ agency: { prompts: ['task.ask@4'] } });
    const finishes = events.filter((event) => event.type === 'iteration-finish');
    expect(finishes.map((event) => event.prompts)).toEqual([
      ['task.ask@4'],
      ['task.ask@4'],
      ['task.ask@4', 'agent.synthesis@2'],
    ]);
  });

  it('repairs with the version it is given; without prompts it names none', async () => {
    const model = new ScriptedModel(['not json', '{"n": 1}']);
    const agent = new LLMAgent({ name: 'a', model, prompts: await agentPrompts() });
    const result = await agent.execute({ input: 'n?' }, { schema: z.object({ n: z.number() }) });
    expect(result.object).toEqual({ n: 1 });
    const repair = model.calls[1]?.options.prompt.at(-1);
    expect(JSON.stringify(repair)).toMatch(/Fix: - .* \/ \{/);
    expect(model.calls[1]?.options.providerOptions?.agency).toEqual({ prompts: ['agent.repair@2'] });

    const plain = new ScriptedModel(['Hi.']);
    await new LLMAgent({ name: 'b', model: plain }).execute({ input: 'hi' });
    expect(plain.calls[0]?.options.providerOptions).toBeUndefined();
  });
});
