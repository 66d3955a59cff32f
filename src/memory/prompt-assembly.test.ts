import { describe, expect, it } from 'vitest';
import { assistantMessage, systemMessage, userMessage } from '../core/messages.ts';
import { renderHistory } from './history-policy.ts';
import { createInMemoryMemoryStore } from './in-memory-memory-store.ts';
import { createMemoryManager } from './memory-manager.ts';
import { assemblePrompt, stablePrefixLength } from './prompt-assembly.ts';

describe('assemblePrompt', () => {
  it('puts the segments in the fixed order: persona, pinned, task context, phase recall, history, ask', () => {
    const history = [userMessage('Earlier question'), assistantMessage('Earlier answer')];
    const messages = assemblePrompt({
      persona: 'You are Scout.',
      pinned: { text: '# Memory\n\n## User memory\n- [preference] Short answers.' },
      taskContext: '# Findings\nThe API is paginated.',
      phaseRecall: '# Memory for the plan phase\n\n## Agent memory\n- [episode] Staging is slow.',
      history,
      ask: 'Draft the plan.',
    });
    expect(messages).toEqual([
      systemMessage('You are Scout.'),
      systemMessage('# Memory\n\n## User memory\n- [preference] Short answers.'),
      systemMessage('# Findings\nThe API is paginated.'),
      systemMessage('# Memory for the plan phase\n\n## Agent memory\n- [episode] Staging is slow.'),
      ...history,
      userMessage('Draft the plan.'),
    ]);
  });

  it('leaves out empty segments and takes an ask with parts', () => {
    const ask = userMessage([{ type: 'text', text: 'What is in this image?' }]);
    const messages = assemblePrompt({ persona: 'P', pinned: { text: '' }, taskContext: '  \n', ask });
    expect(messages).toEqual([systemMessage('P'), ask]);
    expect(assemblePrompt({ persona: 'P', ask: '' })).toEqual([systemMessage('P')]);
  });

  it('marks the end of the stable prefix with the given provider options', () => {
    const cache = { anthropic: { cacheControl: { type: 'ephemeral' } } };
    const withPinned = assemblePrompt({
      persona: 'P',
      pinned: 'M',
      taskContext: 'T',
      ask: 'A',
      prefixProviderOptions: cache,
    });
    expect(withPinned.slice(0, 3)).toEqual([
      systemMessage('P'),
      { role: 'system', content: 'M', providerOptions: cache },
      systemMessage('T'),
    ]);
    expect(stablePrefixLength({ persona: 'P', pinned: 'M' })).toBe(2);
    const bare = assemblePrompt({ persona: 'P', ask: 'A', prefixProviderOptions: cache });
    expect(bare[0]).toEqual({ role: 'system', content: 'P', providerOptions: cache });
  });

  it('keeps persona + pinned memory byte-identical across steps while recall, context, history and the store change', async () => {
    let time = Date.UTC(2025, 0, 1);
    const store = createInMemoryMemoryStore({ now: () => (time += 1000) });
    const channels = { agent: 'scout', user: 'ada', org: 'acme', task: 'task_1' };
    await store.put({ kind: 'agent', id: 'scout' }, { kind: 'constraint', text: 'Never push to main.' });
    await store.put({ kind: 'user', id: 'ada' }, { kind: 'preference', key: 'tone', text: 'Short answers.' });
    await store.put({ kind: 'org', id: 'acme' }, { kind: 'constraint', text: 'Cite sources.' });
    await store.put({ kind: 'agent', id: 'scout' }, { kind: 'fact', text: 'Staging deploys take ten minutes.' });
    const persona = 'You are Scout, a careful engineer.';

    const step = async (phase: string, context: string, session: ReturnType<typeof userMessage>[], ask: string) => {
      const memory = createMemoryManager({ store, channels });
      const pinned = await memory.buildPinned();
      const phaseRecall = await memory.buildPhase(phase, { text: ask, exclude: pinned });
      const history = renderHistory({ seed: [userMessage('Seed')], session, policy: { mode: 'lastN', n: 4 } });
      const messages = assemblePrompt({ persona, pinned, taskContext: context, phaseRecall, history, ask });
      return { messages, prefix: stablePrefixLength({ persona, pinned }) };
    };

    const first = await step('gather', '# Findings\n(none yet)', [], 'Find how staging deploys work.');
    await store.put({ kind: 'task', id: 'task_1' }, { kind: 'fact', text: 'Deploy script is deploy.sh' });
    await store.put({ kind: 'agent', id: 'scout' }, { kind: 'episode', text: 'Last deploy failed on migrations.' });
    await store.put({ kind: 'user', id: 'ada' }, { kind: 'preference', key: 'tone', text: 'Short answers.' });
    await createMemoryManager({ store, channels }).writeLearnings({ summary: 'Deploys are slow.', taskId: 'task_0' });
    const second = await step(
      'plan',
      '# Findings\nUses deploy.sh',
      [userMessage('Go on')],
      'Draft the plan to deploy.',
    );

    expect(first.prefix).toBe(2);
    expect(second.prefix).toBe(2);
    const bytes = (m: typeof first) => JSON.stringify(m.messages.slice(0, m.prefix));
    expect(bytes(second)).toBe(bytes(first));
    expect(JSON.stringify(second.messages)).not.toBe(JSON.stringify(first.messages));
    expect(second.messages.at(-1)).toEqual(userMessage('Draft the plan to deploy.'));
  });
});
