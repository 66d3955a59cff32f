import assert from 'node:assert/strict';
import { formatScope, type MemoryScope } from '../../memory/memory-store.ts';
import { type ContractBody, idsOf, rejectsWith, scopes } from './support.ts';

const { user, agent, org } = scopes;

// Put, query and delete: identity, round trip, replacement, filters, order, limits and TTL.
export const basicCases: Array<[string, ContractBody]> = [
  [
    'put returns the entry with an id, its scope and createdAt, and it comes back exactly as put',
    async ({ store, now }) => {
      const metadata = {
        provenance: { source: 'user', taskId: 't1', sources: ['progress/sources.jsonl'] },
        confidence: 0.5,
        nested: { list: [1, 'two', null, true, { deep: -0.25 }], empty: {} },
      };
      const stored = await store.put(user, {
        kind: 'fact',
        title: 'Home',
        text: 'Lives in Lisbon',
        tags: ['geo', 'x'],
        metadata,
      });
      assert.equal(typeof stored.id, 'string');
      assert.ok(stored.id.length > 0);
      assert.deepEqual(stored.scope, user);
      assert.equal(stored.metadata.createdAt, new Date(now()).toISOString());
      const [found] = await store.query([user], { topK: 5 });
      assert.deepEqual(found, stored);
      assert.deepEqual(found?.metadata, { ...metadata, createdAt: stored.metadata.createdAt });
      const given = await store.put(user, {
        id: 'mine',
        kind: 'fact',
        text: 'x',
        metadata: { createdAt: '2024-05-06T07:08:09.123Z' },
      });
      assert.equal(given.id, 'mine');
      assert.equal(given.metadata.createdAt, '2024-05-06T07:08:09.123Z');
      const other = await store.put(user, { kind: 'fact', text: 'y' });
      assert.notEqual(other.id, stored.id);
    },
  ],
  [
    'a put with an existing id or key replaces that entry and keeps its id; scopes are separate',
    async ({ store, tick }) => {
      const first = await store.put(user, { kind: 'preference', key: 'tone', text: 'Formal' });
      tick();
      const second = await store.put(user, { kind: 'preference', key: 'tone', text: 'Casual' });
      assert.equal(second.id, first.id);
      await store.put(agent, { kind: 'preference', key: 'tone', text: 'Neutral' });
      const byId = await store.put(user, { id: first.id, kind: 'preference', key: 'tone', text: 'Brief', tags: ['t'] });
      assert.equal(byId.id, first.id);
      const all = await store.query([user, agent], { topK: 10 });
      assert.deepEqual(all.map((e) => `${formatScope(e.scope)} ${e.text}`).sort(), [
        'agent:a1 Neutral',
        'user:u1 Brief',
      ]);
      assert.deepEqual((await store.query([user], { topK: 10 }))[0]?.tags, ['t']);
      // A new id with a key another entry holds takes the key: the older entry is gone.
      await store.put(user, { id: 'new-holder', kind: 'preference', key: 'tone', text: 'Plain' });
      assert.deepEqual(await idsOf(store, [user], {}), ['new-holder']);
    },
  ],
  [
    'query filters by scopes, kinds, keys and tags (all of them), and name never filters',
    async ({ store }) => {
      await store.put(user, { id: 'one', kind: 'fact', key: 'k1', text: 'one', tags: ['a', 'b'] });
      await store.put(user, { id: 'two', kind: 'episode', key: 'k2', text: 'two', tags: ['a'] });
      await store.put(agent, { id: 'three', kind: 'fact', key: 'k3', text: 'three', tags: ['a', 'b'] });
      await store.put(org, { id: 'four', kind: 'fact', text: 'four' });
      const sorted = async (wanted: readonly MemoryScope[], q: object) => (await idsOf(store, wanted, q)).sort();
      assert.deepEqual(await sorted([user], { tags: ['a', 'b'] }), ['one']);
      assert.deepEqual(await sorted([user, agent], { kinds: ['fact'] }), ['one', 'three']);
      assert.deepEqual(await sorted([user, agent, org], { keys: ['k2', 'k3'] }), ['three', 'two']);
      assert.deepEqual(await sorted([user, agent, org], { tags: ['a'], kinds: ['fact'] }), ['one', 'three']);
      assert.deepEqual(await sorted([{ kind: 'org', id: 'none' }], {}), []);
      assert.deepEqual(await sorted([user], { name: 'anything at all' }), ['one', 'two']);
      assert.deepEqual(await sorted([user, user], {}), ['one', 'two']);
      assert.deepEqual(await sorted([], {}), []);
    },
  ],
  [
    'without text: newest first, then id ascending; the same query always gives the same list',
    async ({ store, tick }) => {
      await store.put(user, { id: 'b', kind: 'fact', text: 'one' });
      await store.put(user, { id: 'a', kind: 'fact', text: 'two' });
      await store.put(user, { id: 'c', kind: 'fact', text: 'three' });
      tick();
      await store.put(user, { id: 'z', kind: 'fact', text: 'four' });
      await store.put(agent, {
        id: 'y',
        kind: 'fact',
        text: 'five',
        metadata: { createdAt: '2020-01-01T00:00:00.000Z' },
      });
      assert.deepEqual(await idsOf(store, [user, agent], {}), ['z', 'a', 'b', 'c', 'y']);
      assert.deepEqual(await idsOf(store, [user, agent], {}), ['z', 'a', 'b', 'c', 'y']);
      assert.deepEqual(await idsOf(store, [user, agent], { topK: 2 }), ['z', 'a']);
    },
  ],
  [
    'with text: only matching entries, the better match first, equal matches newest first then by id',
    async ({ store, tick }) => {
      await store.put(user, { id: 'p2', kind: 'fact', text: 'deploy pipeline uses actions' });
      await store.put(user, { id: 'p1', kind: 'fact', text: 'deploy pipeline uses actions' });
      tick();
      await store.put(user, { id: 'p0', kind: 'fact', text: 'deploy pipeline uses actions' });
      await store.put(user, { id: 'weak', kind: 'fact', text: 'the deploy happens on tuesdays' });
      await store.put(user, { id: 'none', kind: 'fact', text: 'unrelated note about lunch' });
      const found = await idsOf(store, [user], { text: 'Deploy pipeline' });
      assert.deepEqual(found, ['p0', 'p1', 'p2', 'weak']);
      assert.deepEqual(await idsOf(store, [user], { text: 'Deploy pipeline' }), found);
      assert.deepEqual(await idsOf(store, [user], { text: 'nothing-matches-this' }), []);
      assert.deepEqual(await idsOf(store, [user], { text: 'LUNCH' }), ['none']);
    },
  ],
  [
    'topK caps the list, and maxTokens skips an entry that would go over the budget',
    async ({ store, tick }) => {
      await store.put(user, { id: 'long', kind: 'fact', text: 'x'.repeat(40) });
      tick();
      await store.put(user, { id: 'short', kind: 'fact', text: 'abcd' });
      tick();
      await store.put(user, { id: 'mid', kind: 'fact', text: 'y'.repeat(12) });
      assert.deepEqual(await idsOf(store, [user], { topK: 1 }), ['mid']);
      assert.deepEqual(await idsOf(store, [user], { topK: 0 }), []);
      // mid costs 3 tokens, short 1, long 10: a budget of 4 takes mid and short and skips long.
      assert.deepEqual(await idsOf(store, [user], { maxTokens: 4 }), ['mid', 'short']);
      assert.deepEqual(await idsOf(store, [user], { maxTokens: 2 }), ['short']);
      await rejectsWith(store.query([user], { topK: -1 }), 'invalid_argument');
      await rejectsWith(store.query([user], { topK: 1.5 }), 'invalid_argument');
    },
  ],
  [
    'an entry whose ttl has run out is never returned, with or without text',
    async ({ store, tick }) => {
      await store.put(user, { id: 'brief', kind: 'fact', text: 'ephemeral token', metadata: { ttl: 5000 } });
      await store.put(user, { id: 'kept', kind: 'fact', text: 'durable token' });
      tick(4999);
      assert.deepEqual((await idsOf(store, [user], {})).sort(), ['brief', 'kept']);
      tick(1);
      assert.deepEqual(await idsOf(store, [user], {}), ['kept']);
      assert.deepEqual(await idsOf(store, [user], { text: 'token' }), ['kept']);
      // Re-putting with a new createdAt brings it back, as a new write would.
      await store.put(user, { id: 'brief', kind: 'fact', text: 'ephemeral token', metadata: { ttl: 5000 } });
      assert.deepEqual(await idsOf(store, [user], { text: 'ephemeral' }), ['brief']);
    },
  ],
  [
    'delete removes one entry of one scope and says whether it was there',
    async ({ store }) => {
      const kept = await store.put(agent, { id: 'same', kind: 'fact', text: 'agent copy' });
      const gone = await store.put(user, { id: 'same', kind: 'fact', key: 'slot', text: 'user copy' });
      assert.equal(await store.delete(user, gone.id), true);
      assert.equal(await store.delete(user, gone.id), false);
      assert.equal(await store.delete(org, kept.id), false);
      assert.deepEqual(await idsOf(store, [user, agent], { text: 'copy' }), ['same']);
      assert.equal((await store.query([user, agent], { topK: 5 }))[0]?.scope.kind, 'agent');
      // The key is free again.
      const again = await store.put(user, { kind: 'fact', key: 'slot', text: 'new' });
      assert.notEqual(again.id, undefined);
      assert.deepEqual(await idsOf(store, [user], { keys: ['slot'] }), [again.id]);
    },
  ],
  [
    'malformed scopes, entries and queries are refused with invalid_argument',
    async ({ store }) => {
      await rejectsWith(
        store.put({ kind: 'galaxy', id: 'x' } as never, { kind: 'fact', text: 'x' }),
        'invalid_argument',
      );
      await rejectsWith(store.put({ kind: 'user', id: '' }, { kind: 'fact', text: 'x' }), 'invalid_argument');
      await rejectsWith(store.put(user, { kind: '', text: 'x' }), 'invalid_argument');
      await rejectsWith(store.put(user, { kind: 'fact', text: 5 } as never), 'invalid_argument');
      await rejectsWith(
        store.put(user, { kind: 'fact', text: 'x', metadata: { createdAt: 'yesterday' } }),
        'invalid_argument',
      );
      await rejectsWith(store.put(user, { kind: 'fact', text: 'x', tags: 'a' } as never), 'invalid_argument');
      await rejectsWith(store.query([{ kind: 'user' } as never], { topK: 1 }), 'invalid_argument');
      await rejectsWith(store.query([user], { topK: 1, kinds: 'fact' } as never), 'invalid_argument');
      await rejectsWith(store.delete({ kind: 'nope', id: 'x' } as never, 'x'), 'invalid_argument');
      assert.deepEqual(await idsOf(store, [user], {}), []);
    },
  ],
];
