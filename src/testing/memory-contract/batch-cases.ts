import assert from 'node:assert/strict';
import { createMemoryManager, type MemoryEvent } from '../../memory/memory-manager.ts';
import type { MemoryEntry } from '../../memory/memory-store.ts';
import { putMany } from '../../memory/put-many.ts';
import { type ContractBody, idsOf, rejectsWith, scopes } from './support.ts';

const { user, agent } = scopes;
const BIG = 60;

// putMany (the store's own, or the put-by-put fallback) behaves as a put of each entry in order.
export const batchCases: Array<[string, ContractBody]> = [
  [
    'putMany is a put of each entry in order: ids, createdAt, and replacement by id and key in and across batches',
    async ({ store, now }) => {
      const tone = await store.put(user, { kind: 'preference', key: 'tone', text: 'Formal.' });
      const stored = await putMany(store, user, [
        { kind: 'preference', key: 'tone', text: 'Short answers.' },
        { kind: 'fact', text: 'Lives in Lisbon.' },
        { kind: 'fact', key: 'pet', text: 'Has a cat.' },
        { kind: 'fact', key: 'pet', text: 'Has a dog.' },
        { id: 'given', kind: 'fact', text: 'first' },
        { id: 'given', kind: 'fact', text: 'second', metadata: { createdAt: '2024-05-06T07:08:09.123Z' } },
        { id: tone.id, kind: 'fact', key: 'moved', text: 'The tone slot gave way to this.' },
        { kind: 'preference', key: 'tone', text: 'Casual.' },
        { kind: 'fact', key: 'fish', text: 'Has a fish.' },
        { id: 'goldfish', kind: 'fact', key: 'fish', text: 'Has a goldfish.' },
      ]);
      assert.equal(stored.length, 10);
      assert.equal(stored[9]?.id, 'goldfish', 'a given id wins over the id holding the key');
      assert.equal(stored[0]?.id, tone.id, 'a key held before the batch keeps its id');
      assert.equal(stored[2]?.id, stored[3]?.id, 'a key held earlier in the batch keeps its id');
      assert.deepEqual(stored.map((entry) => entry.id).slice(4, 6), ['given', 'given']);
      assert.equal(stored[1]?.metadata.createdAt, new Date(now()).toISOString());
      assert.equal(stored[5]?.metadata.createdAt, '2024-05-06T07:08:09.123Z');
      assert.equal(stored[6]?.id, tone.id);
      assert.notEqual(stored[7]?.id, tone.id, 'the tone key was given up with its id, so it takes a new one');
      const all = await store.query([user], { topK: 100 });
      const texts = all.map((entry) => entry.text).sort();
      assert.deepEqual(texts, [
        'Casual.',
        'Has a dog.',
        'Has a goldfish.',
        'Lives in Lisbon.',
        'The tone slot gave way to this.',
        'second',
      ]);
      assert.deepEqual((await store.query([user], { topK: 5, keys: ['pet'] }))[0], stored[3]);
      assert.deepEqual((await store.query([user], { topK: 5, text: 'Lisbon' }))[0], stored[1]);
    },
  ],
  [
    'putMany: TTL from the store clock, channels kept apart, and an empty batch writes nothing',
    async ({ store, tick }) => {
      await putMany(store, user, [
        { kind: 'fact', key: 'slot', text: 'user side', metadata: { ttl: 5_000 } },
        { kind: 'fact', text: 'lasting user fact' },
      ]);
      await putMany(store, agent, [{ kind: 'fact', key: 'slot', text: 'agent side' }]);
      assert.deepEqual(await putMany(store, agent, []), []);
      assert.deepEqual(
        (await store.query([agent], { topK: 10 })).map((e) => e.text),
        ['agent side'],
      );
      assert.equal((await store.query([user], { topK: 10, keys: ['slot'] }))[0]?.text, 'user side');
      tick(4_999);
      assert.equal((await store.query([user], { topK: 10 })).length, 2);
      tick(1);
      assert.deepEqual(
        (await store.query([user], { topK: 10 })).map((e) => e.text),
        ['lasting user fact'],
      );
      assert.equal((await store.query([agent], { topK: 10, keys: ['slot'] })).length, 1);
    },
  ],
  [
    'putMany checks every entry first: one invalid entry rejects the batch, naming its position, and writes nothing',
    async ({ store }) => {
      const entries = [
        { kind: 'fact', text: 'fine' },
        { kind: 'fact', text: 'also fine' },
        { kind: 'fact', text: 42 },
      ] as unknown as MemoryEntry[];
      await rejectsWith(putMany(store, user, entries), 'invalid_argument');
      await assert.rejects(putMany(store, user, entries), /entries\[2\].*"text"/);
      await rejectsWith(putMany(store, user, 'not a list' as unknown as MemoryEntry[]), 'invalid_argument');
      await rejectsWith(
        putMany(store, { kind: 'nobody', id: 'x' } as never, [{ kind: 'fact', text: 'x' }]),
        'invalid_argument',
      );
      assert.deepEqual(await idsOf(store, [user], {}), []);
    },
  ],
  [
    'putMany: a batch of hostile and unicode entries comes back exactly, and text recall finds one of them',
    async ({ store }) => {
      const hostile = ["'); DROP TABLE memory_entries; --", 'NEAR(a b) OR "x" * ^y', '\u0000 nul', 'e\u0301 😀 \ud800'];
      const entries = Array.from({ length: BIG }, (_, i) => ({
        kind: 'fact',
        text: `${hostile[i % hostile.length]} item${i}`,
        tags: [`t${i % 3}`],
      }));
      const stored = await putMany(store, agent, entries);
      assert.equal(new Set(stored.map((entry) => entry.id)).size, BIG);
      const found = await store.query([agent], { topK: 5, text: 'item37' });
      assert.deepEqual(found, [stored[37]]);
      assert.equal(found[0]?.text, `${hostile[37 % hostile.length]} item37`);
      const t1 = stored.filter((entry) => entry.tags?.includes('t1'));
      assert.deepEqual(
        (await store.query([agent], { topK: BIG, tags: ['t1'] })).map((e) => e.id).sort(),
        t1.map((e) => e.id).sort(),
      );
    },
  ],
  [
    'writeMany through a MemoryManager: each entry redacted and checked, the store never receives the secret',
    async ({ store }) => {
      const secret = 'sk-live-0123456789abcdef';
      const events: MemoryEvent[] = [];
      const memory = createMemoryManager({
        store,
        channels: { user: user.id },
        redact: (text) => text.replaceAll(secret, '[REDACTED]'),
        onEvent: (event) => void events.push(event),
      }).withWriteCheck((_scope, entry) => (entry.text.includes('refuse me') ? null : entry));
      const written = await memory.writeMany(user, [
        { kind: 'fact', title: `key ${secret}`, text: `The key is ${secret}.` },
        { kind: 'fact', text: 'refuse me' },
        { kind: 'fact', text: 'plain' },
      ]);
      assert.equal(written[1], null);
      assert.equal(written[0]?.text, 'The key is [REDACTED].');
      assert.equal(written[0]?.title, 'key [REDACTED]');
      assert.equal(written[2]?.text, 'plain');
      assert.deepEqual(await idsOf(store, [user], { text: secret }), []);
      assert.equal((await store.query([user], { topK: 10 })).length, 2);
      assert.deepEqual(events, [{ type: 'memory.write', scopes: ['user:u1'], count: 2 }]);
      await rejectsWith(memory.writeMany(user, [{ kind: 'fact', text: null } as never]), 'invalid_argument');
      await rejectsWith(memory.writeMany(user, 'not a list' as never), 'invalid_argument');
      assert.equal(events.length, 1);
    },
  ],
];
