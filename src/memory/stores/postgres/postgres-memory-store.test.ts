import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startPostgres, type TempPostgres } from '../../../../test/support/postgres.ts';
import { meaningModel } from '../__fixtures__/meaning-model.ts';
import { openPostgresMemoryStore } from './postgres-memory-store.ts';
import { SCHEMA_VERSION } from './schema.ts';

let server: TempPostgres;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.stop());
const agent = { kind: 'agent', id: 'a' } as const;

describe('the PostgreSQL memory store', () => {
  it('keeps entries across reopen, and two stores on one database see each other', async () => {
    const first = await openPostgresMemoryStore({ connectionString: server.url, schema: 'shared' });
    const second = await openPostgresMemoryStore({ connectionString: server.url, schema: 'shared' });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? first : second).put(agent, { kind: 'preference', key: 'k', text: `writer ${i}` }),
      ),
    );
    await first.put(agent, { kind: 'fact', text: 'Café au lait in 東京' });
    expect(await second.query([agent], { topK: 10, keys: ['k'] })).toHaveLength(1);
    expect((await second.query([agent], { topK: 5, text: 'CAFÉ' }))[0]?.text).toBe('Café au lait in 東京');
    expect(await second.scopes()).toEqual([agent]);
    await Promise.all([first.close(), second.close()]);
    const again = await openPostgresMemoryStore({ connectionString: server.url, schema: 'shared' });
    expect(await again.query([agent], { topK: 10 })).toHaveLength(2);
    await again.close();
  });

  it('finds by meaning through vectors kept as float4[] and searched in process', async () => {
    const embedding = { model: meaningModel(), minSimilarity: 0.3 };
    const store = await openPostgresMemoryStore({ connectionString: server.url, schema: 'vectors', embedding });
    await store.put(agent, { id: 'car', kind: 'fact', text: 'I drive a car to work' });
    await store.put(agent, { id: 'cat', kind: 'fact', text: 'The kitten sleeps all day' });
    expect((await store.query([agent], { topK: 5, text: 'automobile' })).map((e) => e.id)).toEqual(['car']);
    const other = await openPostgresMemoryStore({ connectionString: server.url, schema: 'vectors', embedding });
    await other.put(agent, { id: 'late', kind: 'fact', text: 'a feline friend' });
    await other.delete(agent, 'cat');
    expect((await store.query([agent], { topK: 5, text: 'kitten' })).map((e) => e.id)).toEqual(['late']);
    await Promise.all([store.close(), other.close()]);
  });

  it('refuses a newer schema, a bad schema name and an unreachable server, naming what to do', async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query('CREATE SCHEMA future; CREATE TABLE future.agency_memory_schema (version integer NOT NULL)');
    await client.query(`INSERT INTO future.agency_memory_schema VALUES (${SCHEMA_VERSION + 1})`);
    await client.end();
    await expect(openPostgresMemoryStore({ connectionString: server.url, schema: 'future' })).rejects.toMatchObject({
      code: 'memory_store_invalid',
      message: expect.stringMatching(/open it with a newer agency/),
    });
    await expect(openPostgresMemoryStore({ connectionString: server.url, schema: 'x"; DROP' })).rejects.toThrow(
      /"schema".*letters, digits/,
    );
    const error = await openPostgresMemoryStore({
      connectionString: 'postgres://someone:hunter2@127.0.0.1:9/none',
    }).then(
      () => ({ code: 'opened', message: '' }),
      (caught: unknown) => caught as Error & { code: string },
    );
    expect(error.code).toBe('memory_store_unavailable');
    expect(error.message).not.toContain('hunter2');
  });

  it('putMany writes thousands in multi-row INSERTs in one transaction: a refused row leaves none of the batch', async () => {
    const embedding = { model: meaningModel() };
    const store = await openPostgresMemoryStore({ connectionString: server.url, schema: 'batch', embedding });
    await store.put(agent, { kind: 'fact', key: 'kept', text: 'before the batch' });
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    onTestFinished(() => client.end());
    await client.query(
      "CREATE FUNCTION batch.poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.doc LIKE '%poison%' " +
        "THEN RAISE EXCEPTION 'poisoned row'; END IF; RETURN NEW; END $$",
    );
    await client.query(
      'CREATE TRIGGER poison BEFORE INSERT ON batch.agency_memory_entries FOR EACH ROW EXECUTE FUNCTION batch.poison()',
    );
    const batch = Array.from({ length: 2_500 }, (_, i) => ({ kind: 'fact', text: `car number ${i}` }));
    const poisoned = [{ kind: 'fact', key: 'kept', text: 'replaced' }, ...batch, { kind: 'fact', text: 'poison' }];
    await expect(store.putMany?.(agent, poisoned)).rejects.toThrow(/poisoned row/);
    const count = `SELECT count(*)::int AS n, count(vec)::int AS v FROM batch.agency_memory_entries`;
    expect((await client.query(count)).rows[0]).toEqual({ n: 1, v: 1 });
    const stored = (await store.putMany?.(agent, [{ kind: 'fact', key: 'kept', text: 'replaced' }, ...batch])) ?? [];
    expect(stored).toHaveLength(2_501);
    expect((await client.query(count)).rows[0]).toEqual({ n: 2_501, v: 2_501 });
    expect((await store.query([agent], { topK: 5, keys: ['kept'] })).map((e) => e.text)).toEqual(['replaced']);
    const row = await client.query("SELECT doc FROM batch.agency_memory_entries WHERE doc LIKE '%number 2345%'");
    expect(row.rows.map((r) => JSON.parse(r.doc))).toEqual([stored[2_346]]);
    await store.close();
  });
});
