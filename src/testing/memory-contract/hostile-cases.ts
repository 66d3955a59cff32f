import assert from 'node:assert/strict';
import { type ContractBody, idsOf, scopes } from './support.ts';

const { user, agent } = scopes;

/** Text that is query syntax in SQL, FTS5, tsquery, RediSearch or Lucene, and characters UTF-8 stores trip on. */
export const HOSTILE_TEXTS: readonly string[] = [
  '"',
  '""unbalanced "quote',
  '*',
  'pre* *fix',
  'NEAR(alpha beta, 2)',
  'alpha OR beta AND NOT gamma',
  "'; DROP TABLE memory_entries; --",
  "Robert'); DELETE FROM entries WHERE ('1'='1",
  '-alpha --beta',
  'title:alpha body:beta',
  '((alpha',
  'beta))',
  'a & b | !c <-> d',
  '%_%\\',
  '$1 ? :name @x',
  'nul\u0000inside',
  'lone \ud800 high and \udc00 low',
  '{"json": [1, 2]}',
  '\u202eright-to-left override',
  '',
];

// Unicode, large entries and hostile input, in content and in queries.
export const hostileCases: Array<[string, ContractBody]> = [
  [
    'unicode round-trips exactly, and words in any script are matched case-insensitively',
    async ({ store, tick }) => {
      const texts = {
        emoji: 'Ship it 🚀🚀 with 👩🏽‍💻 and flags 🇵🇹',
        cjk: '東京 大阪 京都',
        rtl: 'שלום עולם مرحبا بالعالم',
        accents: 'Café crème, naïve façade, Ünïcödé',
        combining: 'e\u0301 vs \u00e9',
      };
      for (const [id, text] of Object.entries(texts)) {
        await store.put(user, { id, kind: 'fact', title: id.toUpperCase(), text, tags: [`tag-${text.slice(0, 3)}`] });
        tick();
      }
      const all = await store.query([user], { topK: 10 });
      for (const entry of all) assert.equal(entry.text, texts[entry.id as keyof typeof texts]);
      assert.deepEqual(await idsOf(store, [user], { text: 'CAFÉ' }), ['accents']);
      assert.deepEqual(await idsOf(store, [user], { text: '大阪' }), ['cjk']);
      assert.deepEqual(await idsOf(store, [user], { text: 'עולם' }), ['rtl']);
      assert.deepEqual(await idsOf(store, [user], { tags: [`tag-${texts.emoji.slice(0, 3)}`] }), ['emoji']);
    },
  ],
  [
    'large entries: a 1 MiB text and 200 tags round-trip and are found by a word deep inside',
    async ({ store }) => {
      const filler = 'lorem ipsum dolor sit amet '.repeat(19_000);
      const text = `${filler} needleword ${filler}`.slice(0, 1 << 20);
      const tags = Array.from({ length: 200 }, (_, i) => `tag-${i}`);
      const big = await store.put(user, {
        id: 'big',
        kind: 'fact',
        text: `${text}`,
        tags,
        metadata: { blob: 'z'.repeat(100_000) },
      });
      await store.put(user, { id: 'small', kind: 'fact', text: 'nothing here' });
      const [found] = await store.query([user], { topK: 1, text: 'needleword' });
      assert.equal(found?.id, 'big');
      assert.equal(found?.text.length, text.length);
      assert.equal(found?.text, big.text);
      assert.deepEqual(found?.tags, tags);
      assert.equal(found?.metadata.blob, 'z'.repeat(100_000));
      assert.deepEqual(await idsOf(store, [user], { tags: ['tag-199', 'tag-0'] }), ['big']);
    },
  ],
  [
    'hostile content is stored as plain text and comes back exactly, NUL and lone surrogates included',
    async ({ store }) => {
      const written = await Promise.all(
        HOSTILE_TEXTS.map((text, i) =>
          store.put(user, {
            id: `h${i}`,
            kind: 'fact',
            key: text === '' ? 'k-empty' : `k ${text}`,
            title: text,
            text,
            tags: [text, 'hostile'],
          }),
        ),
      );
      const back = await store.query([user], { topK: 100 });
      assert.equal(back.length, HOSTILE_TEXTS.length);
      for (const entry of written)
        assert.deepEqual(
          back.find((e) => e.id === entry.id),
          entry,
        );
      for (const [i, text] of HOSTILE_TEXTS.entries()) {
        assert.deepEqual(await idsOf(store, [user], { keys: [text === '' ? 'k-empty' : `k ${text}`] }), [`h${i}`]);
        if (text !== '') assert.deepEqual(await idsOf(store, [user], { tags: [text] }), [`h${i}`]);
      }
      const marker = await store.put(agent, { kind: 'fact', text: 'still working after all that' });
      assert.deepEqual(await idsOf(store, [agent], { text: 'working' }), [marker.id]);
    },
  ],
  [
    'hostile queries never throw or widen the match: syntax is text, and text without words ranks by recency',
    async ({ store, tick }) => {
      await store.put(user, { id: 'alpha', kind: 'fact', text: 'alpha only' });
      tick();
      await store.put(user, { id: 'beta', kind: 'fact', text: 'beta only' });
      tick();
      await store.put(user, { id: 'gamma', kind: 'fact', text: 'gamma only' });
      await store.put(agent, { id: 'other', kind: 'fact', text: 'alpha beta gamma in another scope' });
      for (const text of HOSTILE_TEXTS) {
        const found = await idsOf(store, [user], { text });
        assert.ok(!found.includes('other'), `a query never leaves its scopes: ${JSON.stringify(text)}`);
        const words: string[] = text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];
        for (const id of found) {
          if (words.length > 0) assert.ok(words.includes(id), `${id} matched ${JSON.stringify(text)}`);
        }
        if (words.length === 0) assert.deepEqual(found, ['gamma', 'beta', 'alpha'], JSON.stringify(text));
      }
      assert.deepEqual(await idsOf(store, [user], { text: 'alpha OR beta' }), ['beta', 'alpha']);
      assert.deepEqual(await idsOf(store, [user], { text: 'NEAR(alpha beta, 2)' }), ['beta', 'alpha']);
      assert.deepEqual(await idsOf(store, [user], { text: '-alpha' }), ['alpha']);
      assert.deepEqual(await idsOf(store, [user], { text: 'gam*' }), []);
      assert.deepEqual(await idsOf(store, [user], { tags: ["' OR '1'='1"] }), []);
      assert.deepEqual(await idsOf(store, [user], { keys: ["x' OR 1=1 --"], kinds: ['%'] }), []);
    },
  ],
];
