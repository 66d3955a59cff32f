import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSuite } from './suite.ts';

let suite: string;
beforeEach(async () => {
  suite = await mkdtemp(join(tmpdir(), 'agency-suite-'));
});
afterEach(() => rm(suite, { recursive: true, force: true }));

async function addCase(name: string, expect = ''): Promise<string> {
  await mkdir(join(suite, name, 'task'), { recursive: true });
  await writeFile(join(suite, name, 'task/brief.md'), '# Do it\n');
  await writeFile(join(suite, name, 'expect.yaml'), expect);
  return join(suite, name);
}

describe('loadSuite', () => {
  it('reads cases in name order with defaults, skipping dot folders and files', async () => {
    await addCase('b');
    await addCase('a', 'checks:\n  - { type: matches, path: artifacts/x.md, pattern: "^# " }\n');
    await mkdir(join(suite, '.git'));
    await writeFile(join(suite, 'README.md'), 'about the suite');
    const loaded = await loadSuite(suite);
    expect(loaded.cases.map((item) => [item.name, item.hasCassette])).toEqual([
      ['a', false],
      ['b', false],
    ]);
    expect(loaded.cases[1]?.expect).toEqual({ finish_reason: 'completed', checks: [], budgets: {} });
  });

  it('refuses an empty suite, a case without a brief, bad YAML and a pattern the linear engine cannot run', async () => {
    await expect(loadSuite(suite)).rejects.toThrow(`eval suite ${suite} has no cases`);
    await mkdir(join(suite, 'empty'));
    await expect(loadSuite(suite)).rejects.toThrow('case "empty" has no task/brief.md');
    await rm(join(suite, 'empty'), { recursive: true });
    await addCase('yaml', 'checks: [');
    await expect(loadSuite(suite)).rejects.toThrow(`${join(suite, 'yaml/expect.yaml')} is not valid YAML`);
    await addCase('yaml', 'checks:\n  - { type: matches, path: a.md, pattern: "(a)\\\\1" }\n');
    await expect(loadSuite(suite)).rejects.toThrow(
      /expect\.yaml: "checks\.0\.pattern" pattern .* lookahead, lookbehind and backreferences/,
    );
    await addCase('yaml', 'finish_reason: done\n');
    await expect(loadSuite(suite)).rejects.toThrow('"finish_reason"');
  });

  it('allows links to files of the suite, and refuses a dangling one, one out of it, and one to a folder', async () => {
    const dir = await addCase('a');
    await writeFile(join(suite, 'shared.md'), 'shared input');
    await symlink(join(suite, 'shared.md'), join(dir, 'task/shared.md'));
    await expect(loadSuite(suite)).resolves.toMatchObject({ cases: [{ name: 'a' }] });
    await symlink(join(suite, 'nowhere'), join(dir, 'task/dangling.md'));
    await expect(loadSuite(suite)).rejects.toThrow(`${join(dir, 'task/dangling.md')} is a link that leads outside`);
    await rm(join(dir, 'task/dangling.md'));
    // A loop: the copy would follow it without end.
    await symlink(dir, join(dir, 'task/loop'));
    await expect(loadSuite(suite)).rejects.toThrow(`${join(dir, 'task/loop')} is a link to a folder`);
    await rm(join(dir, 'task/loop'));
    await symlink(dir, join(suite, 'b'));
    await expect(loadSuite(suite)).rejects.toThrow(`${join(suite, 'b')} is a link to a folder`);
  });
});
