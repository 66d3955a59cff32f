import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { promptStoreContract } from '../../testing/prompt-store-contract.ts';
import { BUILTIN_PROMPTS } from '../builtin-prompts.ts';
import { createSqlitePromptStore, type SqlitePromptStore } from './sqlite-prompt-store.ts';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function databaseFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agency-prompt-sqlite-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'prompts.sqlite');
}

function open(path: string, table?: string): SqlitePromptStore {
  const store = createSqlitePromptStore({ path, ...(table ? { table } : {}) });
  cleanup.push(() => store.close());
  return store;
}

describe('the SQLite prompt store', () => {
  for (const test of promptStoreContract(async () => open(await databaseFile()))) it(test.name, test.run);

  it('keeps SQL in texts and authors as data', async () => {
    const store = open(await databaseFile());
    const text = '\'); DROP TABLE agency_prompt_versions; -- {{name}} " ` ;';
    await store.put({ id: 'sql', text, metadata: { note: "x'); DELETE FROM y; --" }, createdBy: "o'brien" });
    expect((await store.get('sql'))?.text).toBe(text);
    expect((await store.get('sql'))?.createdBy).toBe("o'brien");
    expect(await store.list()).toHaveLength(1);
  });

  it('numbers after the built-in versions, and keeps separate tables apart', async () => {
    const path = await databaseFile();
    const store = createSqlitePromptStore({ path, after: BUILTIN_PROMPTS });
    cleanup.push(() => store.close());
    expect((await store.put({ id: 'runner.gather', text: 'Gather.', createdBy: 'ops' })).version).toBe(3);
    expect(await open(path, 'other').list()).toEqual([]);
    expect(() => createSqlitePromptStore({ path, table: 'x; DROP TABLE y' })).toThrow(
      /table: .* is not a table prefix/,
    );
  });

  it('refuses a row edited by hand to be invalid, naming the row and column', async () => {
    const path = await databaseFile();
    const store = open(path);
    await store.put({ id: 'greet', text: 'Hi {{name}}', createdBy: 'ops' });
    const db = new DatabaseSync(path);
    cleanup.push(() => db.close());
    db.exec(`UPDATE agency_prompt_versions SET text = 'Hi {{name' WHERE id = 'greet'`);
    await expect(store.get('greet')).rejects.toThrow(
      /agency_prompt_versions row greet@1, column text: text line 1, column 4: .*never closed.*put the change as a new version/,
    );
    db.exec(`UPDATE agency_prompt_versions SET text = 'Hi {{name}}', required_vars = 'not json' WHERE id = 'greet'`);
    await expect(store.render('greet', { name: 'x' })).rejects.toThrow(
      /row greet@1, column required_vars: is not JSON/,
    );
    db.exec(`UPDATE agency_prompt_versions SET required_vars = '[]' WHERE id = 'greet'`);
    await expect(store.list()).rejects.toThrow(/column required_vars: requiredVars: the text uses "name"/);
    db.exec(`UPDATE agency_prompt_versions SET required_vars = '["name"]', engine = 'eval' WHERE id = 'greet'`);
    await expect(store.get('greet', 1)).rejects.toMatchObject({ code: 'prompt_invalid', message: /column engine/ });
  });

  it('gives writers in separate processes versions of their own', async () => {
    const path = await databaseFile();
    open(path);
    const module = new URL('./sqlite-prompt-store.ts', import.meta.url).pathname;
    const writer = (name: string) =>
      promisify(execFile)(process.execPath, [
        '--input-type=module',
        '-e',
        `import { createSqlitePromptStore } from ${JSON.stringify(module)};
         const store = createSqlitePromptStore({ path: ${JSON.stringify(path)} });
         for (let i = 0; i < 10; i++) await store.put({ id: 'race', text: '${name} ' + i, createdBy: '${name}' });
         store.close();`,
      ]);
    await Promise.all([writer('a'), writer('b'), writer('c')]);
    const store = open(path);
    const versions = await store.list({ id: 'race' });
    expect(versions.map((template) => template.version)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(new Set(versions.map((template) => template.text)).size).toBe(30);
    expect(await store.audit({ id: 'race' })).toHaveLength(30);
  });
});
