import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TempPostgres } from '../../../test/support/postgres.ts';
import { promptStoreContract } from '../../testing/prompt-store-contract.ts';
import { BUILTIN_PROMPTS } from '../builtin-prompts.ts';
import { createPostgresPromptStore, type PostgresPromptStore } from './postgres-prompt-store.ts';

// A real PostgreSQL (scripts/ensure-postgres.sh installs it); every case gets tables of its own.
let server: TempPostgres;
let pool: pg.Pool;
let tables = 0;
const stores: PostgresPromptStore[] = [];

beforeAll(async () => {
  server = await startPostgres();
  pool = new pg.Pool({ connectionString: server.url, max: 8 });
  pool.on('error', () => {}); // an idle connection closed by the server's stop
}, 60_000);

afterAll(async () => {
  for (const store of stores) await store.close();
  await pool?.end();
  await server?.stop();
});

function open(options: Partial<Parameters<typeof createPostgresPromptStore>[0]> = {}): PostgresPromptStore {
  const store = createPostgresPromptStore({ pool, table: `t${++tables}`, ...options });
  stores.push(store);
  return store;
}

describe('the PostgreSQL prompt store', () => {
  for (const test of promptStoreContract(() => open())) it(test.name, test.run);

  it('keeps SQL in texts and authors as data', async () => {
    const store = open();
    const text = "'); DROP TABLE t1_versions; -- {{name}} $1 $$ \\x00";
    await store.put({ id: 'sql', text, metadata: { note: "x'); DELETE FROM y; --" }, createdBy: "o'brien" });
    expect((await store.get('sql'))?.text).toBe(text);
    expect((await store.get('sql'))?.createdBy).toBe("o'brien");
  });

  it('gives writers on separate pools versions of their own, numbered after the built-in ones', async () => {
    const table = `t${++tables}`;
    const writers = Array.from({ length: 3 }, () => {
      const store = createPostgresPromptStore({ connectionString: server.url, table, after: BUILTIN_PROMPTS });
      stores.push(store);
      return store;
    });
    await Promise.all(
      writers.flatMap((store, w) =>
        Array.from({ length: 6 }, (_, i) => store.put({ id: 'runner.gather', text: `w${w} ${i}`, createdBy: `w${w}` })),
      ),
    );
    const versions = await writers[0]!.list({ id: 'runner.gather' });
    expect(versions.map((template) => template.version)).toEqual(Array.from({ length: 18 }, (_, i) => i + 3));
    expect(new Set(versions.map((template) => template.text)).size).toBe(18);
    expect(await writers[1]!.audit({ id: 'runner.gather' })).toHaveLength(18);
  });

  it('refuses a row edited by hand to be invalid, naming the row and column', async () => {
    const table = `t${++tables}`;
    const store = open({ table });
    await store.put({ id: 'greet', text: 'Hi {{name}}', createdBy: 'ops' });
    const edit = (set: string) => pool.query(`UPDATE ${table}_versions SET ${set} WHERE id = 'greet'`);
    await edit(`text = 'Hi {{name'`);
    await expect(store.get('greet')).rejects.toThrow(
      new RegExp(`${table}_versions row greet@1, column text: text line 1, column 4: .*never closed`),
    );
    await edit(`text = 'Hi {{name}}', metadata = '[1, 2]'`);
    await expect(store.render('greet', { name: 'x' })).rejects.toThrow(
      /row greet@1, column metadata: metadata: must be a JSON object/,
    );
    await edit(`metadata = '{}', created_at = 'yesterday'`);
    await expect(store.list()).rejects.toThrow(/column created_at: createdAt: "yesterday" is not an ISO 8601 UTC time/);
    await edit(`created_at = '2026-01-01T00:00:00.000Z', version = 0`);
    await expect(store.list({ id: 'greet' })).rejects.toMatchObject({
      code: 'prompt_invalid',
      message: /column version/,
    });
  });

  it('says which server it could not reach', async () => {
    const store = createPostgresPromptStore({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
    stores.push(store);
    await expect(store.get('greet')).rejects.toThrow(/ECONNREFUSED/);
  });
});
