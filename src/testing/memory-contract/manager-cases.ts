import assert from 'node:assert/strict';
import { createMemoryManager, type MemoryEvent } from '../../memory/memory-manager.ts';
import { type ContractBody, idsOf, scopes } from './support.ts';

const { user, agent, org } = scopes;

// Channels, precedence and redaction through a MemoryManager over the store, and concurrent writers.
export const managerCases: Array<[string, ContractBody]> = [
  [
    'channels and precedence: through a MemoryManager, the user preference and the agent constraint win',
    async ({ store }) => {
      await store.put(agent, { kind: 'preference', key: 'tone', text: 'Formal and complete.' });
      await store.put(user, { kind: 'preference', key: 'tone', text: 'Short answers.' });
      await store.put(user, { kind: 'constraint', key: 'git', text: 'Push to main is fine.' });
      await store.put(agent, { kind: 'constraint', key: 'git', text: 'Never push to main.' });
      await store.put(org, { kind: 'constraint', key: 'sources', text: 'Cite a source for every claim.' });
      await store.put({ kind: 'user', id: 'someone-else' }, { kind: 'preference', key: 'tone', text: 'Shout.' });
      const events: MemoryEvent[] = [];
      const memory = createMemoryManager({
        store,
        channels: { agent: agent.id, user: user.id, org: org.id },
        onEvent: (event) => void events.push(event),
      });
      const pinned = await memory.buildPinned();
      assert.match(pinned.text, /Short answers\./);
      assert.match(pinned.text, /Never push to main\./);
      assert.match(pinned.text, /Cite a source/);
      assert.doesNotMatch(pinned.text, /Formal and complete|Push to main is fine|Shout/);
      assert.deepEqual(await memory.buildPinned(), pinned, 'the pinned block is byte-stable');
      assert.deepEqual(events[0], { type: 'memory.read', scopes: ['agent:a1', 'org:acme', 'user:u1'], count: 3 });
    },
  ],
  [
    'phase recall ranks by the text and leaves out what the pinned block already holds',
    async ({ store, tick }) => {
      await store.put(agent, { kind: 'procedure', text: 'To release, tag the commit and run the release job.' });
      tick();
      await store.put(agent, { kind: 'fact', text: 'The office plant needs water on Fridays.' });
      await store.put(user, { kind: 'preference', key: 'tone', text: 'Short answers.' });
      const memory = createMemoryManager({ store, channels: { agent: agent.id, user: user.id } });
      const pinned = await memory.buildPinned();
      const recall = await memory.buildPhase('gather', { text: 'how do we release', exclude: pinned });
      assert.match(recall.text, /tag the commit/);
      assert.doesNotMatch(recall.text, /office plant|Short answers/);
    },
  ],
  [
    'redaction at write: the store never receives the secret',
    async ({ store }) => {
      const secret = 'sk-live-0123456789abcdef';
      const memory = createMemoryManager({
        store,
        channels: { user: user.id },
        redact: (text) => text.replaceAll(secret, '[REDACTED]'),
      });
      await memory.write(user, { kind: 'fact', title: `key ${secret}`, text: `The key is ${secret}.` });
      const [stored] = await store.query([user], { topK: 5 });
      assert.equal(stored?.text, 'The key is [REDACTED].');
      assert.equal(stored?.title, 'key [REDACTED]');
      assert.deepEqual(await idsOf(store, [user], { text: secret }), []);
      const refused = memory.withWriteCheck(() => null);
      assert.equal(await refused.write(user, { kind: 'fact', text: 'never stored' }), null);
      assert.equal((await store.query([user], { topK: 5 })).length, 1);
    },
  ],
  [
    'concurrent writers: parallel puts all land, and racing puts of one key leave one entry',
    async ({ store }) => {
      const distinct = Array.from({ length: 40 }, (_, i) =>
        store.put(i % 2 === 0 ? user : agent, { kind: 'fact', text: `parallel fact number ${i}` }),
      );
      const sameKey = Array.from({ length: 20 }, (_, i) =>
        store.put(user, { kind: 'preference', key: 'racing', text: `version ${i}` }),
      );
      const [written, raced] = await Promise.all([Promise.all(distinct), Promise.all(sameKey)]);
      assert.equal(new Set(written.map((e) => `${e.scope.kind}:${e.id}`)).size, 40);
      assert.equal(new Set(raced.map((e) => e.id)).size, 1, 'every put of one key keeps one id');
      const facts = await store.query([user, agent], { topK: 100, kinds: ['fact'] });
      assert.equal(facts.length, 40);
      const racing = await store.query([user], { topK: 100, keys: ['racing'] });
      assert.equal(racing.length, 1);
      assert.match(racing[0]?.text ?? '', /^version \d+$/);
      const deletes = await Promise.all(written.map((e) => store.delete(e.scope, e.id)));
      assert.ok(deletes.every(Boolean));
      assert.deepEqual(await idsOf(store, [user, agent], { kinds: ['fact'] }), []);
    },
  ],
];
