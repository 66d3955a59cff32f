// Opening the GitHub director from its files: the token file must be there with mode 0600, the config's name must
// be its directory's, and a hand-broken state.json is refused by name.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type AgencyRoot, agencyRootAt } from '../../../config/agency-root.ts';
import { githubConfigYaml } from '../../../../test/support/github-director-fixture.ts';
import { createScriptedDispatch } from '../../../../test/support/scripted-dispatch.ts';
import { openGitHubDirector } from './open-github-director.ts';

let root: AgencyRoot;
let dir: string;
const token = () => join(root.credentials, 'github-token');

beforeEach(async () => {
  const base = await mkdtemp(join(tmpdir(), 'agency-gh-open-'));
  root = agencyRootAt(base);
  dir = join(root.directors, 'gh');
  await mkdir(dir, { recursive: true });
  await mkdir(root.credentials, { recursive: true });
  await writeFile(join(dir, 'config.yaml'), githubConfigYaml('http://127.0.0.1:9', join(base, 'remote.git')));
  await writeFile(token(), 'ghp_opentest0123456789abcdef\n');
  await chmod(token(), 0o600);
});

const open = (name = 'gh') =>
  openGitHubDirector({
    root,
    name,
    dispatch: createScriptedDispatch(join(root.root, 'tasks')),
    stopping: new AbortController().signal,
    signal: new AbortController().signal,
    log: { info() {}, warn() {}, error() {} },
  }).then(
    () => 'opened',
    (error: unknown) => (error as Error).message.replaceAll(root.root, '<root>'),
  );

describe('opening the GitHub director', () => {
  it('opens with a 0600 token and a matching name', async () => {
    expect(await open()).toBe('opened');
  });

  it('refuses a token file that is missing or readable by others, naming it and the fix', async () => {
    await chmod(token(), 0o644);
    expect(await open()).toMatch(/^<root>\/directors\/gh\/config.yaml: credentials: .*github-token.*chmod 600/s);
    await rm(token());
    expect(await open()).toMatch(/^<root>\/directors\/gh\/config.yaml: credentials: .*github-token/s);
  });

  it('refuses a config whose name is not its directory, and a broken state.json', async () => {
    await mkdir(join(root.directors, 'other'));
    await writeFile(join(root.directors, 'other', 'config.yaml'), githubConfigYaml('http://127.0.0.1:9', '/tmp/x'));
    expect(await open('other')).toBe('<root>/directors/other/config.yaml: name: is gh, not other; make it other');
    await writeFile(join(dir, 'state.json'), '{"status_issue": "seven"');
    expect(await open()).toBe('<root>/directors/gh/state.json: not valid JSON; move it away to start afresh');
    await writeFile(join(dir, 'state.json'), '{"status_issue": "seven"}');
    expect(await open()).toMatch(
      /^<root>\/directors\/gh\/state.json: not a GitHub director state \(.*\); move it away/,
    );
  });
});
