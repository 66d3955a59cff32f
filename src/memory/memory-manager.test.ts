import { describe, expect, it } from 'vitest';
import { estimateTokens } from '../core/tokens.ts';
import { createInMemoryMemoryStore } from './in-memory-memory-store.ts';
import { createMemoryManager, type MemoryEvent, type MemoryManagerOptions } from './memory-manager.ts';
import type { MemoryEntry, MemoryScope, MemoryStore } from './memory-store.ts';

const agent: MemoryScope = { kind: 'agent', id: 'a1' };
const user: MemoryScope = { kind: 'user', id: 'u1' };
const org: MemoryScope = { kind: 'org', id: 'acme' };
const project: MemoryScope = { kind: 'project', id: 'web' };
const task: MemoryScope = { kind: 'task', id: 'task_1' };
const channels = { agent: 'a1', user: 'u1', org: 'acme', project: 'web', task: 'task_1' };

function setup(options: Partial<MemoryManagerOptions> = {}) {
  let time = Date.UTC(2025, 0, 1);
  const store = createInMemoryMemoryStore({ now: () => (time += 1000) });
  const events: MemoryEvent[] = [];
  const memory = createMemoryManager({ store, channels, onEvent: (e) => void events.push(e), ...options });
  return { store, memory, events };
}

async function putAll(store: MemoryStore, rows: Array<[MemoryScope, MemoryEntry]>) {
  for (const [scope, entry] of rows) await store.put(scope, entry);
}

describe('precedence', () => {
  it('lets user beat org/project beat agent on preferences', async () => {
    const { store, memory } = setup();
    await putAll(store, [
      [agent, { kind: 'preference', key: 'tone', text: 'Tone chosen by the agent' }],
      [org, { kind: 'preference', key: 'tone', text: 'Tone chosen by the org' }],
      [user, { kind: 'preference', key: 'tone', text: 'Tone chosen by the user' }],
      [agent, { kind: 'preference', key: 'format', text: 'Format chosen by the agent' }],
      [project, { kind: 'preference', key: 'format', text: 'Format chosen by the project' }],
    ]);
    const { text } = await memory.buildPinned();
    expect(text).toContain('Tone chosen by the user');
    expect(text).toContain('Format chosen by the project');
    expect(text).not.toMatch(/Tone chosen by the (agent|org)|Format chosen by the agent/);
  });

  it('lets agent beat org/project beat user on constraints', async () => {
    const { store, memory } = setup();
    await putAll(store, [
      [user, { kind: 'constraint', key: 'deploy', text: 'Deploy rule of the user' }],
      [org, { kind: 'constraint', key: 'deploy', text: 'Deploy rule of the org' }],
      [agent, { kind: 'constraint', key: 'deploy', text: 'Deploy rule of the agent' }],
      [user, { kind: 'constraint', key: 'budget', text: 'Budget rule of the user' }],
      [org, { kind: 'constraint', key: 'budget', text: 'Budget rule of the org' }],
    ]);
    const { text } = await memory.buildPinned();
    expect(text).toContain('Deploy rule of the agent');
    expect(text).toContain('Budget rule of the org');
    expect(text).not.toMatch(/Deploy rule of the (user|org)|Budget rule of the user/);
  });

  it('is configurable per kind', async () => {
    const { store, memory } = setup({ precedence: { constraint: ['user', 'org', 'agent'] } });
    await putAll(store, [
      [agent, { kind: 'constraint', key: 'deploy', text: 'Deploy rule of the agent' }],
      [user, { kind: 'constraint', key: 'deploy', text: 'Deploy rule of the user' }],
    ]);
    const { text } = await memory.buildPinned();
    expect(text).toContain('Deploy rule of the user');
    expect(text).not.toContain('Deploy rule of the agent');
  });

  it('keeps a pinned winner from being overridden by a phase recall', async () => {
    const { store, memory } = setup();
    await putAll(store, [
      [user, { kind: 'preference', key: 'tone', text: 'User tone' }],
      [agent, { kind: 'preference', key: 'tone', text: 'Agent tone' }],
    ]);
    const pinned = await memory.buildPinned();
    const recall = await memory.buildPhase('plan', { exclude: pinned });
    expect(recall.text).not.toContain('Agent tone');
    expect(recall.text).not.toContain('User tone');
  });
});

describe('pinned block', () => {
  it('renders channels in order, in content order, with no ids or times', async () => {
    const { store, memory } = setup();
    await putAll(store, [
      [user, { kind: 'preference', key: 'tone', title: 'Tone', text: 'Short answers.' }],
      [agent, { kind: 'fact', text: 'Not pinned: a plain fact.' }],
      [agent, { kind: 'fact', text: 'Pinned by tag.', tags: ['pinned'] }],
      [agent, { kind: 'constraint', text: 'Never deploy on Fridays.' }],
      [org, { kind: 'constraint', title: 'Style', text: 'Use the\n  house style.' }],
      [task, { kind: 'constraint', text: 'Task channel is never pinned.' }],
    ]);
    const block = await memory.buildPinned();
    expect(block.text).toBe(
      [
        '# Memory',
        '',
        '## Agent memory',
        '- [constraint] Never deploy on Fridays.',
        '- [fact] Pinned by tag.',
        '',
        '## User memory',
        '- [preference] Tone: Short answers.',
        '',
        '## Org/team/project memory',
        '- [constraint] Style: Use the house style.',
      ].join('\n'),
    );
    expect(block).toMatchObject({ count: 4, omitted: 0, tokens: estimateTokens(block.text) });
    expect(block.scopes).toEqual(['agent:a1', 'org:acme', 'project:web', 'user:u1']);
  });

  it('never goes over a channel budget and truncates the same way whatever the insertion order', async () => {
    const rows: Array<[MemoryScope, MemoryEntry]> = [];
    for (let i = 0; i < 12; i++) {
      rows.push([agent, { kind: 'constraint', key: `c${i}`, text: `Agent rule number ${i} ${'x'.repeat(i * 3)}` }]);
      rows.push([user, { kind: 'preference', key: `p${i}`, text: `User preference ${i} ${'y'.repeat(i * 2)}` }]);
      rows.push([org, { kind: 'constraint', key: `o${i}`, text: `Org policy ${i} ${'z'.repeat(i)}` }]);
    }
    const forward = setup({ pinned: { budgets: { agent: 40 } } });
    await putAll(forward.store, rows);
    const backward = setup({ pinned: { budgets: { agent: 40 } } });
    await putAll(backward.store, [...rows].reverse());
    const a = await forward.memory.buildPinned();
    const b = await backward.memory.buildPinned();
    expect(a.text).toBe(b.text);
    expect(a.omitted).toBeGreaterThan(0);
    const sections = a.text.split('\n\n');
    const budgets: Record<string, number> = { '## Agent memory': 40, '## User memory': 60 };
    for (const section of sections) {
      const heading = section.split('\n')[0] ?? '';
      expect(estimateTokens(section)).toBeLessThanOrEqual(budgets[heading] ?? 60);
    }
    expect(a.tokens).toBeLessThanOrEqual(40 + 60 + 60 + estimateTokens('# Memory\n\n'));
  });

  it('skips an entry that does not fit and keeps a later one that does', async () => {
    const { store, memory } = setup({ pinned: { budgets: { agent: 20 } } });
    await putAll(store, [
      [agent, { kind: 'constraint', title: 'a', text: 'w'.repeat(100) }],
      [agent, { kind: 'constraint', title: 'b', text: 'Short rule.' }],
    ]);
    const block = await memory.buildPinned();
    expect(block.text).toBe('# Memory\n\n## Agent memory\n- [constraint] b: Short rule.');
    expect(block).toMatchObject({ count: 1, omitted: 1 });
  });

  it('dedupes by content hash and by title', async () => {
    const { store, memory } = setup();
    await putAll(store, [
      [agent, { kind: 'constraint', text: 'Cite every source.' }],
      [org, { kind: 'constraint', text: '  cite every   SOURCE. ' }],
      [user, { kind: 'preference', title: 'Language', text: 'Answer in English.' }],
      [project, { kind: 'preference', title: 'language', text: 'Answer in Portuguese.' }],
    ]);
    const block = await memory.buildPinned();
    expect(block.text.match(/cite every/gi)).toHaveLength(1);
    expect(block.text).toContain('Answer in English.');
    expect(block.text).not.toContain('Portuguese');
    expect(block.count).toBe(2);
  });

  it('can turn dedupe off', async () => {
    const { store, memory } = setup({ dedupe: { byHash: false, byTitle: false } });
    await putAll(store, [
      [agent, { kind: 'constraint', text: 'Cite every source.' }],
      [org, { kind: 'constraint', text: 'Cite every source.' }],
    ]);
    expect((await memory.buildPinned()).count).toBe(2);
  });

  it('applies the redactor to titles and text', async () => {
    const redact = (text: string) => text.replaceAll(/sk-[a-z0-9]+/g, '[REDACTED]');
    const { store, memory } = setup({ redact });
    await putAll(store, [[user, { kind: 'preference', title: 'key sk-title1', text: 'Use key sk-abc123 for tests.' }]]);
    const block = await memory.buildPinned();
    expect(block.text).toBe('# Memory\n\n## User memory\n- [preference] key [REDACTED]: Use key [REDACTED] for tests.');
  });
});

describe('byte stability', () => {
  it('keeps the pinned block byte-identical while only other channels and recall entries change', async () => {
    const { store, memory } = setup();
    await putAll(store, [
      [agent, { kind: 'constraint', key: 'deploy', text: 'Never deploy on Fridays.' }],
      [user, { kind: 'preference', key: 'tone', text: 'Short answers.' }],
      [org, { kind: 'constraint', key: 'style', text: 'Use the house style.' }],
    ]);
    const first = await memory.buildPinned();
    await store.put(task, { kind: 'constraint', text: 'A task note.' });
    await store.put(agent, { kind: 'fact', text: 'A new fact for recall.' });
    await memory.writeLearnings({ summary: 'Learned that staging is slow.', taskId: 'task_1' });
    await store.put(user, { kind: 'preference', key: 'tone', text: 'Short answers.' }); // same content, new time
    const recall = await memory.buildPhase('gather', { text: 'staging', exclude: first });
    expect(recall.text).toContain('staging is slow');
    const second = await memory.buildPinned();
    expect(second.text).toBe(first.text);
    expect(second.seen).toEqual(first.seen);
  });
});

describe('phase recall', () => {
  it('reads the default k per channel for gather, under a heading, without repeating the pinned block', async () => {
    const { store, memory } = setup();
    for (let i = 0; i < 6; i++) {
      await store.put(agent, { kind: 'fact', text: `agent fact ${i}` });
      await store.put(user, { kind: 'episode', text: `user episode ${i}` });
      await store.put(project, { kind: 'procedure', text: `project procedure ${i}` });
    }
    await store.put(user, { kind: 'preference', text: 'user pinned preference' });
    const pinned = await memory.buildPinned();
    const recall = await memory.buildPhase('gather', { exclude: pinned });
    expect(recall.text.startsWith('# Memory for the gather phase\n\n## Agent memory\n')).toBe(true);
    expect(recall.text.match(/agent fact/g)).toHaveLength(4);
    expect(recall.text.match(/user episode/g)).toHaveLength(3);
    expect(recall.text.match(/project procedure/g)).toHaveLength(2);
    expect(recall.text).not.toContain('user pinned preference');
    expect(recall.text).toContain('agent fact 5'); // the newest first when there is no query text
    expect(recall.tokens).toBeLessThanOrEqual(400);
  });

  it('ranks by the context text and stays within the phase budget', async () => {
    const { store, memory } = setup({
      phases: { verify: { maxTokens: 30, queries: [{ channel: 'shared', topK: 3 }] } },
    });
    await store.put(org, { kind: 'procedure', text: 'Release checklist: run the smoke tests.' });
    await store.put(org, { kind: 'procedure', text: 'Lunch is at noon.' });
    await store.put(org, { kind: 'procedure', text: `Release ${'long '.repeat(40)}` });
    const recall = await memory.buildPhase('verify', { text: 'release checklist' });
    expect(recall.text).toBe(
      '# Memory for the verify phase\n\n## Org/team/project memory\n' +
        '- [procedure] Release checklist: run the smoke tests.',
    );
    expect(recall.omitted).toBe(1);
    expect(recall.tokens).toBeLessThanOrEqual(30);
  });

  it('recalls nothing for a phase without a spec, and reports no read', async () => {
    const { store, memory, events } = setup();
    await store.put(agent, { kind: 'fact', text: 'something' });
    const recall = await memory.buildPhase('act');
    expect(recall).toMatchObject({ text: '', tokens: 0, count: 0 });
    expect(events).toEqual([]);
  });
});

describe('events', () => {
  it('carry scopes and counts, never entry text', async () => {
    const { store, memory, events } = setup();
    const texts = ['Secret plan alpha', 'Prefers tabs', 'Quarterly numbers', 'Staging learned lesson'];
    await putAll(store, [
      [agent, { kind: 'constraint', title: 'Hidden title', text: texts[0] ?? '' }],
      [user, { kind: 'preference', text: texts[1] ?? '' }],
      [org, { kind: 'fact', text: texts[2] ?? '' }],
    ]);
    const pinned = await memory.buildPinned();
    await memory.buildPhase('verify', { text: 'quarterly', exclude: pinned });
    await memory.writeLearnings({ summary: texts[3] ?? '', taskId: 'task_1', sources: ['progress/sources.jsonl'] });
    expect(events).toEqual([
      { type: 'memory.read', scopes: ['agent:a1', 'org:acme', 'project:web', 'user:u1'], count: 2 },
      { type: 'memory.read', scopes: ['agent:a1', 'org:acme', 'project:web'], count: 1, phase: 'verify' },
      { type: 'memory.write', scopes: ['agent:a1', 'task:task_1'], count: 2 },
    ]);
    const serialized = JSON.stringify(events);
    for (const text of [...texts, 'Hidden title', 'progress/sources.jsonl']) expect(serialized).not.toContain(text);
  });
});

describe('writes', () => {
  it('writes learnings to the task and agent channels with provenance, redacted', async () => {
    const { store, memory } = setup({ redact: (t) => t.replaceAll('hunter2', '[REDACTED]') });
    const result = await memory.writeLearnings({
      summary: ' Staging needs a warm-up; password hunter2 ',
      taskId: 'task_9',
      sources: ['progress/sources.jsonl'],
    });
    expect(result.denied).toEqual([]);
    expect(result.written.map((e) => `${e.scope.kind}:${e.scope.id}`)).toEqual(['task:task_9', 'agent:a1']);
    const [stored] = await store.query([{ kind: 'task', id: 'task_9' }], { topK: 1 });
    expect(stored).toMatchObject({
      kind: 'episode',
      key: 'learnings:task_9',
      text: 'Staging needs a warm-up; password [REDACTED]',
      tags: ['learnings'],
      metadata: { provenance: { source: 'task', taskId: 'task_9', sources: ['progress/sources.jsonl'] } },
    });
    await memory.writeLearnings({ summary: 'Second run', taskId: 'task_9' });
    expect(await store.query([agent], { topK: 10 })).toHaveLength(1);
  });

  it('asks checkWrite with the redacted entry and skips refused scopes', async () => {
    const asked: string[] = [];
    const { store, memory, events } = setup({
      redact: (t) => t.replaceAll('hunter2', '***'),
      checkWrite: async (scope, entry) => {
        asked.push(`${scope.kind} ${entry.text}`);
        return scope.kind === 'agent' ? null : entry;
      },
    });
    const result = await memory.writeLearnings({ summary: 'pw hunter2', taskId: 'task_1' });
    expect(asked).toEqual(['task pw ***', 'agent pw ***']);
    expect(result.denied).toEqual([agent]);
    expect(await store.query([agent], { topK: 5 })).toEqual([]);
    expect(events).toEqual([{ type: 'memory.write', scopes: ['task:task_1'], count: 1 }]);
    expect(await memory.write(agent, { kind: 'fact', text: 'no' })).toBeNull();
    expect(await memory.write(user, { kind: 'fact', text: 'yes' })).toMatchObject({ text: 'yes' });
    expect(events.at(-1)).toEqual({ type: 'memory.write', scopes: ['user:u1'], count: 1 });
  });

  it('stores the entry a check changed, and chains a check added with withWriteCheck after its own', async () => {
    const { store, memory, events } = setup({
      checkWrite: (scope, entry) => (scope.kind === 'org' ? null : { ...entry, tags: ['checked'] }),
    });
    const guarded = memory.withWriteCheck((scope, entry) =>
      scope.kind === 'user' ? null : { ...entry, text: entry.text.toUpperCase() },
    );
    expect(await guarded.write(agent, { kind: 'fact', text: 'kept' })).toMatchObject({
      text: 'KEPT',
      tags: ['checked'],
    });
    expect(await guarded.write(user, { kind: 'fact', text: 'refused by the added check' })).toBeNull();
    expect(await guarded.write(org, { kind: 'fact', text: 'refused by its own check' })).toBeNull();
    const learned = await guarded.writeLearnings({ summary: 'learned', taskId: 'task_2' });
    expect(learned.written.map((entry) => entry.text)).toEqual(['LEARNED', 'LEARNED']);
    expect(await memory.write(user, { kind: 'fact', text: 'the original is unchanged' })).toMatchObject({
      text: 'the original is unchanged',
    });
    expect(await store.query([user], { topK: 5 })).toHaveLength(1);
    expect(events.map((event) => event.scopes)).toEqual([['agent:a1'], ['agent:a1', 'task:task_2'], ['user:u1']]);
  });

  it('writes nothing for an empty summary', async () => {
    const { memory, events } = setup();
    expect(await memory.writeLearnings({ summary: '  ', taskId: 'task_1' })).toEqual({ written: [], denied: [] });
    expect(events).toEqual([]);
  });
});
