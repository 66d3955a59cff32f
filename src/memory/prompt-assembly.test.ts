import { describe, expect, it } from 'vitest';
import { assistantMessage, type ProviderOptions, systemMessage, userMessage } from '../core/messages.ts';
import { renderHistory } from './history-policy.ts';
import { createInMemoryMemoryStore } from './in-memory-memory-store.ts';
import { createMemoryManager } from './memory-manager.ts';
import { assemblePrompt, CACHE_BREAKPOINT, stablePrefixLength } from './prompt-assembly.ts';

const cache = CACHE_BREAKPOINT;
const text = (value: string, providerOptions?: ProviderOptions) =>
  providerOptions ? { type: 'text' as const, text: value, providerOptions } : { type: 'text' as const, text: value };

describe('assemblePrompt', () => {
  it('puts the segments in the fixed order: persona, pinned, task context, phase recall, history, ask', () => {
    const history = [assistantMessage('Earlier answer'), userMessage('Earlier question')];
    const messages = assemblePrompt({
      persona: 'You are Scout.',
      pinned: { text: '# Memory\n\n## User memory\n- [preference] Short answers.' },
      taskContext: '# Findings\nThe API is paginated.',
      phaseRecall: '# Memory for the plan phase\n\n## Agent memory\n- [episode] Staging is slow.',
      history,
      ask: 'Draft the plan.',
      cacheBreakpoint: false,
    });
    expect(messages).toEqual([
      systemMessage('You are Scout.'),
      systemMessage('# Memory\n\n## User memory\n- [preference] Short answers.'),
      userMessage([
        text('# Findings\nThe API is paginated.'),
        text('# Memory for the plan phase\n\n## Agent memory\n- [episode] Staging is slow.'),
      ]),
      assistantMessage('Earlier answer'),
      userMessage([text('Earlier question'), text('Draft the plan.')]),
    ]);
  });

  it('merges a user message that follows the context, and the ask, so roles alternate', () => {
    const messages = assemblePrompt({
      persona: 'P',
      taskContext: 'T',
      history: [userMessage('Seed'), assistantMessage('Reply')],
      ask: 'A',
      cacheBreakpoint: false,
    });
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[1]).toEqual(userMessage([text('T'), text('Seed')]));
    const own = { role: 'user' as const, content: [text('Q')], providerOptions: { x: { y: 1 } } };
    expect(assemblePrompt({ persona: 'P', taskContext: 'T', history: [own] }).at(-1)).toBe(own);
  });

  it('leaves out empty segments and takes an ask with parts', () => {
    const ask = userMessage([{ type: 'text', text: 'What is in this image?' }]);
    const messages = assemblePrompt({
      persona: 'P',
      pinned: { text: '' },
      taskContext: '  \n',
      ask,
      cacheBreakpoint: false,
    });
    expect(messages).toEqual([systemMessage('P'), ask]);
    expect(assemblePrompt({ persona: 'P', ask: '', cacheBreakpoint: false })).toEqual([systemMessage('P')]);
    expect(assemblePrompt({ persona: '', ask: 'A' })).toEqual([userMessage('A')]);
  });

  it('marks the end of the stable prefix and of the task context as cache breakpoints', () => {
    const withPinned = assemblePrompt({ persona: 'P', pinned: 'M', taskContext: 'T', phaseRecall: 'R', ask: 'A' });
    expect(withPinned).toEqual([
      systemMessage('P'),
      { role: 'system', content: 'M', providerOptions: cache },
      userMessage([text('T', cache), text('R'), text('A')]),
    ]);
    expect(cache).toEqual({ anthropic: { cacheControl: { type: 'ephemeral' } } });
    expect(stablePrefixLength({ persona: 'P', pinned: 'M' })).toBe(2);
    const own = { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } };
    const bare = assemblePrompt({ persona: 'P', ask: 'A', cacheBreakpoint: own });
    expect(bare[0]).toEqual({ role: 'system', content: 'P', providerOptions: own });
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
    expect(second.messages.at(-1)).toEqual(userMessage([text('Go on'), text('Draft the plan to deploy.')]));
  });
});
