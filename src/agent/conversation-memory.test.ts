import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createInMemoryMemoryStore } from '../memory/in-memory-memory-store.ts';
import { openSqliteMemoryStore } from '../memory/stores/sqlite/sqlite-memory-store.ts';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { modelFactExtractor, USER_FACTS_HEADING, withConversationMemory } from './conversation-memory.ts';
import { LLMAgent } from './llm-agent.ts';

const dir = mkdtempSync(join(tmpdir(), 'agency-conversation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const promptOf = (model: ScriptedModel, call: number) => JSON.stringify(model.calls[call]?.options.prompt);

describe('conversation memory', () => {
  it('loads a thread before each turn and saves it after, across a restart, on a SQLite store', async () => {
    const path = join(dir, 'threads.db');
    const model = new ScriptedModel(['Nice to meet you, Ada.', 'You told me: Ada.', 'Hello, stranger.']);
    const first = openSqliteMemoryStore({ path });
    const agent = withConversationMemory(new LLMAgent({ name: 'helper', model }), { store: first });
    const context = { threadId: 't1', userId: 'u1' };
    await agent.execute({ input: 'My name is Ada.', context });
    first.close();
    const second = openSqliteMemoryStore({ path });
    const restarted = withConversationMemory(new LLMAgent({ name: 'helper', model }), { store: second });
    const result = await restarted.execute({ input: 'What is my name?', context });
    expect(result.output).toBe('You told me: Ada.');
    expect(promptOf(model, 1)).toContain('My name is Ada.');
    expect(promptOf(model, 1)).toContain('Nice to meet you, Ada.');
    await restarted.execute({ input: 'Hi', context: { threadId: 't2', userId: 'u1' } });
    expect(promptOf(model, 2)).not.toContain('Ada');
    second.close();
  });

  it('keeps only what the history policy allows', async () => {
    const model = new ScriptedModel(['one', 'two', 'three']);
    const agent = withConversationMemory(new LLMAgent({ name: 'helper', model }), {
      store: createInMemoryMemoryStore(),
      policy: { mode: 'lastN', n: 2 },
    });
    for (const input of ['first question', 'second question', 'third question']) {
      await agent.execute({ input, context: { threadId: 't' } });
    }
    expect(promptOf(model, 2)).toContain('second question');
    expect(promptOf(model, 2)).not.toContain('first question');
  });

  it('extracts user facts with a model call, stores them in the user channel, and recalls them by relevance', async () => {
    const store = createInMemoryMemoryStore();
    const extractorModel = new ScriptedModel([JSON.stringify({ facts: ['The user lives in Lisbon.'] })]);
    const model = new ScriptedModel(['Noted.', 'There is a fado night.', 'Sure.']);
    const agent = withConversationMemory(new LLMAgent({ name: 'helper', model }), {
      store,
      extractFacts: modelFactExtractor(extractorModel),
    });
    await agent.execute({ input: 'I moved to Lisbon last year.', context: { threadId: 'a', userId: 'u1' } });
    const [fact] = await store.query([{ kind: 'user', id: 'u1' }], { topK: 5, kinds: ['fact'] });
    expect(fact).toMatchObject({ text: 'The user lives in Lisbon.', tags: ['user-fact'] });
    await agent.execute({ input: 'Any events in Lisbon this weekend?', context: { threadId: 'b', userId: 'u1' } });
    expect(promptOf(model, 1)).toContain(USER_FACTS_HEADING);
    expect(promptOf(model, 1)).toContain('The user lives in Lisbon.');
    expect(promptOf(model, 1)).not.toContain('I moved to Lisbon');
    await agent.execute({ input: 'Write a haiku', context: { threadId: 'c', userId: 'someone-else' } });
    expect(promptOf(model, 2)).not.toContain('Lisbon');
  });

  it('saves nothing for a turn that fails, and a failing extractor call yields no facts', async () => {
    const store = createInMemoryMemoryStore();
    const broken = new ScriptedModel(['not json at all', 'still not json', 'nope', 'no']);
    const model = new ScriptedModel(['Fine.']);
    const agent = withConversationMemory(new LLMAgent({ name: 'helper', model, maxIterations: 1 }), {
      store,
      extractFacts: modelFactExtractor(broken),
    });
    await agent.execute({ input: 'hello', context: { threadId: 't', userId: 'u1' } });
    expect(await store.query([{ kind: 'user', id: 'u1' }], { topK: 10, kinds: ['fact'] })).toEqual([]);
    const failing = withConversationMemory(new LLMAgent({ name: 'helper', model: new ScriptedModel([]) }), { store });
    const result = await failing.execute({ input: 'lost turn', context: { threadId: 'x', userId: 'u1' } });
    expect(result.finishReason).toBe('error');
    expect(await store.query([{ kind: 'user', id: 'u1' }], { topK: 10, text: 'lost' })).toEqual([]);
  });
});
