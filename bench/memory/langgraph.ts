import { InMemoryStore } from '@langchain/langgraph';
import { PostgresStore } from '@langchain/langgraph-checkpoint-postgres/store';
import { broadQuery, entryText, selectiveQuery, selectiveWord, vectorFor } from './data.ts';
import { checked, load } from './measure.ts';
import type { Row } from './report.ts';

// LangGraph.js's stores on the same entries and queries as agency's. What each offers in place of agency's text
// recall is stated on its rows (docs/benchmarks.md says it in words):
// - InMemoryStore has no text search: `search` with a `query` needs an embedding index, and without one the query is
//   ignored. Its text rows time `search` with `filter: { sel: <word> }`, an exact match on a field that holds the
//   entry's selective word, a scan of every item; a broad query has no counterpart.
// - PostgresStore without an index does search text: `to_tsvector(value::text) @@ plainto_tsquery(...)` (every word,
//   computed per row at query time, no index) OR `value::text ILIKE '%query%'`, ranked by `ts_rank`.

const NAMESPACE = ['bench'];
const BATCH = 2_000;

const valueOf = (i: number) => ({ text: entryText(i), sel: selectiveWord(i) });

/** InMemoryStore: the selective exact-field filter over `size` entries. */
export async function inMemoryTextRow(size: number, runs: number): Promise<Row> {
  const store = new InMemoryStore();
  const putsPerSecond = await load(size, BATCH, (from, to) =>
    store.batch(
      Array.from({ length: to - from }, (_, j) => ({
        namespace: NAMESPACE,
        key: `k${from + j}`,
        value: valueOf(from + j),
      })),
    ),
  );
  const selective = await checked(runs, async (i) => {
    const word = selectiveQuery(i, size);
    const found = await store.search(NAMESPACE, { filter: { sel: word }, limit: 10 });
    return found.length > 0 && found.every((item) => item.value.sel === word);
  });
  return {
    store: 'LangGraph InMemoryStore',
    kind: 'text',
    entries: size,
    putsPerSecond,
    selective,
    compared: 'filter',
  };
}

/** InMemoryStore with an embedding index: top-10 by cosine over `size` vectors of `dims`. */
export async function inMemoryVectorRow(size: number, dims: number, runs: number): Promise<Row> {
  let next = 0;
  const embed = () => vectorFor(next++, dims);
  const embeddings = {
    embedDocuments: async (texts: string[]) => texts.map(embed),
    embedQuery: async () => embed(),
  };
  const store = new InMemoryStore({ index: { dims, embeddings: embeddings as never } });
  const putsPerSecond = await load(size, BATCH, (from, to) =>
    store.batch(
      Array.from({ length: to - from }, (_, j) => ({
        namespace: NAMESPACE,
        key: `k${from + j}`,
        value: { text: `vector entry ${from + j}` },
      })),
    ),
  );
  const vector = await checked(
    runs,
    async () => (await store.search(NAMESPACE, { query: 'q', limit: 10 })).length === 10,
  );
  return { store: 'LangGraph InMemoryStore', kind: 'vector', entries: size, dims, putsPerSecond, vector };
}

/** PostgresStore (no index; pgvector is missing) on the database at `url`: its text search, selective and broad. */
export async function postgresTextRow(url: string, size: number, runs: number): Promise<Row> {
  const store = new PostgresStore({ connectionOptions: { connectionString: url, max: 4 }, schema: 'langgraph' });
  await store.setup();
  try {
    const putsPerSecond = await load(
      size,
      BATCH,
      (from, to) =>
        store.batch(
          Array.from({ length: to - from }, (_, j) => ({
            namespace: NAMESPACE,
            key: `k${from + j}`,
            value: valueOf(from + j),
          })),
        ),
      4,
    );
    const selective = await checked(runs, async (i) => {
      const word = selectiveQuery(i, size);
      const found = await store.search(NAMESPACE, { query: word, limit: 10 });
      return found.length > 0 && found.every((item) => String(item.value.text).includes(word));
    });
    const broad = await checked(
      runs,
      async () => (await store.search(NAMESPACE, { query: broadQuery(), limit: 10 })).length === 10,
    );
    return {
      store: 'LangGraph PostgresStore',
      kind: 'text',
      entries: size,
      putsPerSecond,
      selective,
      broad,
      compared: 'text',
    };
  } finally {
    await store.stop();
  }
}
