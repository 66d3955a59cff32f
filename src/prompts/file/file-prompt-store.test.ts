import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { promptStoreContract } from '../../testing/prompt-store-contract.ts';
import { BUILTIN_PROMPTS } from '../builtin-prompts.ts';
import { AUDIT_FILE, createFilePromptStore } from './file-prompt-store.ts';
import { MAX_PROMPT_FILE_BYTES } from './prompt-file-format.ts';

const dirs: string[] = [];
async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agency-prompt-files-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const VALID = [
  '---',
  'id: greet',
  'version: 1',
  'engine: mustache',
  'requiredVars: [name]',
  'metadata: {}',
  'createdBy: ops',
  'createdAt: 2026-11-25T10:00:00.000Z',
  '---',
  'Hello {{name}}',
].join('\n');

async function plant(dir: string, relative: string, content: string | Buffer): Promise<string> {
  const file = join(dir, relative);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, content);
  return file;
}

describe('the file prompt store', () => {
  for (const test of promptStoreContract(async () => createFilePromptStore({ dir: await folder() }))) {
    it(test.name, test.run);
  }

  it('keeps each version as <id>/<version>.md with front matter, and an append-only audit.ndjson', async () => {
    const dir = await folder();
    const store = createFilePromptStore({ dir });
    await store.put({ id: 'greet', text: 'Hello {{name}}\n\n---\nnot front matter\n', createdBy: 'ops' });
    await store.put({ id: 'greet', text: 'Hi {{name}}', metadata: { owner: 'ops' }, createdBy: 'bob' });
    expect((await readdir(join(dir, 'greet'))).sort()).toEqual(['1.md', '2.md']);
    const first = await readFile(join(dir, 'greet', '1.md'), 'utf8');
    expect(first).toMatch(/^---\nid: greet\nversion: 1\nengine: mustache\nrequiredVars:\n {2}- name\n/);
    expect(first.endsWith('---\nHello {{name}}\n\n---\nnot front matter\n')).toBe(true);
    // Another process (or a checkout) sees the same versions.
    expect((await createFilePromptStore({ dir }).get('greet', 1))?.text).toBe(
      'Hello {{name}}\n\n---\nnot front matter\n',
    );
    const audit = (await readFile(join(dir, AUDIT_FILE), 'utf8')).trim().split('\n');
    expect(audit.map((line) => JSON.parse(line).by)).toEqual(['ops', 'bob']);
  });

  it('reads a version written by hand, and numbers puts after it', async () => {
    const dir = await folder();
    await plant(dir, 'greet/1.md', VALID);
    await plant(dir, 'README.md', '# prompts\n');
    const store = createFilePromptStore({ dir });
    expect((await store.render('greet', { name: 'Ada' })).text).toBe('Hello Ada');
    expect((await store.put({ id: 'greet', text: 'Hey {{name}}', createdBy: 'ops' })).version).toBe(2);
    expect((await store.list()).map((template) => template.id)).toEqual(['greet']);
  });

  it('numbers an override of a built-in prompt after the built-in version', async () => {
    const store = createFilePromptStore({ dir: await folder(), after: BUILTIN_PROMPTS });
    const put = await store.put({ id: 'runner.plan', text: 'Plan.\n{{tools}}', createdBy: 'ops' });
    expect(put.version).toBe(3);
    expect((await store.audit())[0]?.previous?.version).toBe(2);
  });

  it('refuses malformed files, naming the file and the line', async () => {
    const cases: Array<[string, string | Buffer, RegExp]> = [
      ['greet/1.md', 'Hello {{name}}', /greet\/1\.md:1: has no front matter/],
      ['greet/1.md', VALID.replace('version: 1', 'version: [1'), /greet\/1\.md:[34]: .*fix the YAML/],
      [
        'greet/1.md',
        VALID.replace('version: 1', 'version: 2'),
        /greet\/1\.md:3: version: 2 is not the version its path names/,
      ],
      ['greet/1.md', VALID.replace('id: greet', 'id: other'), /greet\/1\.md:2: id: "other" is not the id/],
      [
        'greet/1.md',
        VALID.replace('engine: mustache', 'engine: jinja'),
        /greet\/1\.md:4: engine: "jinja" is not a template engine/,
      ],
      [
        'greet/1.md',
        VALID.replace('requiredVars: [name]', 'requiredVars: []'),
        /greet\/1\.md:5: requiredVars: the text uses "name"/,
      ],
      [
        'greet/1.md',
        VALID.replace('createdBy: ops', 'owner: ops'),
        /greet\/1\.md:7: "owner" is not a field of a prompt/,
      ],
      ['greet/1.md', `${VALID}\n{{#open}}`, /greet\/1\.md:11: text line 2, column 1: "\{\{#open\}\}" is never closed/],
      [
        'greet/1.md',
        Buffer.concat([Buffer.from(`${VALID}\nline two \xff`, 'latin1')]),
        /greet\/1\.md:11: is not valid UTF-8/,
      ],
      [
        'greet/1.md',
        `${VALID}${'x'.repeat(MAX_PROMPT_FILE_BYTES)}`,
        /greet\/1\.md:1: \d+ bytes is over the \d+-byte limit/,
      ],
    ];
    for (const [relative, content, pattern] of cases) {
      const dir = await folder();
      await plant(dir, relative, content);
      await expect(createFilePromptStore({ dir }).get('greet', 1), String(pattern)).rejects.toThrow(pattern);
      await expect(createFilePromptStore({ dir }).list()).rejects.toMatchObject({ code: 'prompt_invalid' });
    }
  });

  it('refuses a malformed audit line, naming it', async () => {
    const dir = await folder();
    const store = createFilePromptStore({ dir });
    await store.put({ id: 'greet', text: 'Hi', createdBy: 'ops' });
    await writeFile(join(dir, AUDIT_FILE), `${await readFile(join(dir, AUDIT_FILE), 'utf8')}{"id":"greet"}\n`);
    await expect(store.audit()).rejects.toThrow(/audit\.ndjson:2: is not an audit entry/);
  });

  it('refuses symbolic links planted in the folder, and never follows them', async () => {
    const outside = await folder();
    await plant(outside, 'greet/1.md', VALID);
    const secret = await plant(outside, 'secret.md', VALID);

    const linkedFolder = await folder();
    await symlink(join(outside, 'greet'), join(linkedFolder, 'greet'));
    await expect(createFilePromptStore({ dir: linkedFolder }).get('greet')).rejects.toThrow(
      /greet:1: is a symbolic link/,
    );
    await expect(createFilePromptStore({ dir: linkedFolder }).list()).rejects.toThrow(/is a symbolic link/);
    await expect(
      createFilePromptStore({ dir: linkedFolder }).put({ id: 'greet', text: 'x', createdBy: 'ops' }),
    ).rejects.toThrow(/is a symbolic link/);
    expect(await readdir(join(outside, 'greet'))).toEqual(['1.md']);

    const linkedFile = await folder();
    await mkdir(join(linkedFile, 'greet'));
    await symlink(secret, join(linkedFile, 'greet', '1.md'));
    await expect(createFilePromptStore({ dir: linkedFile }).get('greet', 1)).rejects.toThrow(
      /1\.md:1: is a symbolic link/,
    );

    const linkedAudit = await folder();
    await symlink(secret, join(linkedAudit, AUDIT_FILE));
    const store = createFilePromptStore({ dir: linkedAudit });
    await expect(store.audit()).rejects.toThrow(/audit\.ndjson:1: is a symbolic link/);
    await expect(store.put({ id: 'greet', text: 'x', createdBy: 'ops' })).rejects.toThrow(/is a symbolic link/);
    expect(await readFile(secret, 'utf8')).toBe(VALID);
  });

  it('gives writers in separate processes versions of their own', async () => {
    const dir = await folder();
    const module = new URL('./file-prompt-store.ts', import.meta.url).pathname;
    const writer = (name: string) =>
      promisify(execFile)(process.execPath, [
        '--input-type=module',
        '-e',
        `import { createFilePromptStore } from ${JSON.stringify(module)};
         const store = createFilePromptStore({ dir: ${JSON.stringify(dir)} });
         for (let i = 0; i < 8; i++) await store.put({ id: 'race', text: '${name} ' + i, createdBy: '${name}' });`,
      ]);
    await Promise.all([writer('a'), writer('b'), writer('c')]);
    const store = createFilePromptStore({ dir });
    const versions = await store.list({ id: 'race' });
    expect(versions.map((template) => template.version)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    expect(new Set(versions.map((template) => template.text)).size).toBe(24);
    expect((await store.audit({ id: 'race' })).map((entry) => entry.version).sort((a, b) => a - b)).toEqual(
      versions.map((template) => template.version),
    );
    expect((await readdir(join(dir, 'race'))).filter((name) => !name.endsWith('.md'))).toEqual([]);
  });
});
