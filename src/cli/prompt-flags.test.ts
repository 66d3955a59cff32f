import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOperatorSettings } from './operator-config.ts';
import { PINNABLE_PROMPT_IDS, promptOptions } from './prompt-flags.ts';

// A config file in a folder of its own, and the folder.
async function configWith(prompts: unknown): Promise<{ file: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'agency-prompt-config-'));
  const file = join(dir, 'config.json');
  await writeFile(file, JSON.stringify({ prompts }));
  return { file, dir };
}

const settingsOf = (file: string) => readOperatorSettings({ config: file }, {});

// A folder holding one operator version of runner.plan, numbered after the built-in ones.
async function promptFolder(parent: string, name: string, note: string): Promise<string> {
  const dir = join(parent, name);
  await mkdir(join(dir, 'runner.plan'), { recursive: true });
  await writeFile(
    join(dir, 'runner.plan', '3.md'),
    `---\nid: runner.plan\nversion: 3\nengine: mustache\nrequiredVars: [tools]\nmetadata: {}\ncreatedBy: ops\ncreatedAt: 2026-11-25T12:00:00.000Z\n---\n${note}\n{{tools}}`,
  );
  return dir;
}

describe('the prompts key of the operator config', () => {
  it('reads the folder relative to the config file and the pins, which the run uses', async () => {
    const { file, dir } = await configWith({ dir: 'prompts', pins: ['runner.plan@1', 'runner.act@2'] });
    await promptFolder(dir, 'prompts', 'from the config');
    const settings = await settingsOf(file);
    expect(settings.prompts).toEqual({
      dir: join(dir, 'prompts'),
      pins: { 'runner.plan': 1, 'runner.act': 2 },
      file,
    });
    const options = promptOptions({}, settings.prompts);
    expect(options.promptVersions).toEqual({ 'runner.plan': 1, 'runner.act': 2 });
    expect((await options.prompts?.get('runner.plan'))?.text).toContain('from the config');
  });

  it('is optional: no key, no store and no pins', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agency-prompt-config-'));
    await writeFile(join(dir, 'config.json'), '{}');
    const settings = await settingsOf(join(dir, 'config.json'));
    expect(settings.prompts).toBeUndefined();
    expect(promptOptions({}, settings.prompts)).toEqual({});
    const { file } = await configWith({});
    expect(promptOptions({}, (await settingsOf(file)).prompts)).toEqual({});
  });

  it('puts the flags over it: --prompts replaces the folder, --prompt the pin of its id only', async () => {
    const { file, dir } = await configWith({ dir: 'gone', pins: ['runner.plan@1', 'runner.act@1'] });
    const flagged = await promptFolder(dir, 'flagged', 'from the flag');
    const options = promptOptions({ prompts: flagged, prompt: ['runner.act@2'] }, (await settingsOf(file)).prompts);
    expect(options.promptVersions).toEqual({ 'runner.plan': 1, 'runner.act': 2 });
    expect((await options.prompts?.get('runner.plan'))?.text).toContain('from the flag');
  });

  it('follows a symbolic link to a folder: the operator named it', async () => {
    const { file, dir } = await configWith({ dir: 'link' });
    await symlink(await promptFolder(dir, 'real', 'behind a link'), join(dir, 'link'));
    const options = promptOptions({}, (await settingsOf(file)).prompts);
    expect((await options.prompts?.get('runner.plan'))?.text).toContain('behind a link');
  });

  it.each([
    [
      { pins: ['runner.plan'] },
      /prompts\.pins\[0\]: "runner\.plan" is not a prompt version: write it as <id>@<version>/,
    ],
    [{ pins: ['runner.plan@1', 'runner.plan@0'] }, /prompts\.pins\[1\]: "runner\.plan@0" is not a prompt version/],
    [{ pins: ['runner.plan@x'] }, /prompts\.pins\[0\]: .* is not a prompt version/],
    [{ pins: ['runner.plan@1.5'] }, /prompts\.pins\[0\]: .* is not a prompt version/],
    [{ pins: ['../etc@1'] }, /prompts\.pins\[0\]: "\.\.\/etc@1" is not a prompt version/],
    [{ pins: ['Runner.Plan@1'] }, /prompts\.pins\[0\]: .* is not a prompt version/],
    [{ pins: ['@1'] }, /prompts\.pins\[0\]: "@1" is not a prompt version/],
    [
      { pins: ['my.prompt@1'] },
      /prompts\.pins\[0\]: "my\.prompt" is not a prompt agency uses.*pin one of agent\.compress, .*runner\.verify/,
    ],
    [
      { pins: ['runner.plan@1', 'runner.plan@2'] },
      /prompts\.pins\[1\]: "runner\.plan" is pinned twice \(@1 and @2\); keep one/,
    ],
    [{ pins: 'runner.plan@1' }, /"prompts\.pins" .*expected array/i],
    [{ pins: [1] }, /"prompts\.pins\.0" .*expected string/i],
    [{ dir: '' }, /"prompts\.dir" /],
    [{ dir: 7 }, /"prompts\.dir" .*expected string/i],
    [{ folder: 'x' }, /"prompts" .*unrecognized key.*folder/i],
    ['prompts', /"prompts" .*expected object/i],
  ])('refuses %j, naming the file and the field', async (prompts, message) => {
    const { file } = await configWith(prompts);
    const error = await settingsOf(file).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({ code: 'invalid_config' });
    expect((error as Error).message.startsWith(`${file}: `)).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses a folder that is missing, a file, or a link to a file, when it is used, naming the file and field', async () => {
    for (const [name, make] of [
      ['missing', async () => {}],
      ['a-file', async (path: string) => writeFile(path, 'x')],
      ['a-link', async (path: string, dir: string) => symlink(join(dir, 'config.json'), path)],
    ] as const) {
      const { file, dir } = await configWith({ dir: name });
      await make(join(dir, name), dir);
      const settings = await settingsOf(file);
      expect(() => promptOptions({}, settings.prompts)).toThrow(
        `${file}: prompts.dir: ${join(dir, name)} is not a folder`,
      );
      // A flag replaces the folder, so a bad one in the file does not stop a run that names another.
      expect(() => promptOptions({ prompts: dir }, settings.prompts)).not.toThrow();
    }
  });

  it('names the flag, not the file, for a bad --prompts or --prompt', async () => {
    const { file } = await configWith({ pins: ['runner.plan@1'] });
    const settings = await settingsOf(file);
    expect(() => promptOptions({ prompts: '/nonexistent/prompts' }, settings.prompts)).toThrow(
      '--prompts: /nonexistent/prompts is not a folder',
    );
    expect(() => promptOptions({ prompt: ['nothing.here@1'] }, settings.prompts)).toThrow(
      /--prompt: "nothing\.here" is not a prompt agency uses/,
    );
  });

  it('knows every id the runner and the agent render', () => {
    expect(PINNABLE_PROMPT_IDS).toEqual(expect.arrayContaining(['runner.persona', 'runner.plan', 'agent.repair']));
  });
});
