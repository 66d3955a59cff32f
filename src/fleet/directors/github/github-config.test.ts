import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cloneUrl, loadGitHubConfig } from './github-config.ts';
import { renderPrompt, unknownPlaceholders } from './prompt-template.ts';

const MINIMAL = [
  'type: github',
  'name: myagent',
  'repo: owner/repo',
  'approvers: [octocat]',
  'prompts:',
  '  work: "Issue #{{.Number}}: {{.Title}}\\n{{.Body}}"',
  '  review: Review; say LGTM.',
].join('\n');

async function load(text: string) {
  const file = join(await mkdtemp(join(tmpdir(), 'agency-gh-config-')), 'config.yaml');
  await writeFile(file, text);
  return loadGitHubConfig(file).catch((error: unknown) => (error as Error).message.replaceAll(`${file}:`, ''));
}

describe('the GitHub director config', () => {
  it('reads the seed-style config with defaults filled in', async () => {
    const config = await load(MINIMAL);
    expect(config).toMatchObject({
      repo: 'owner/repo',
      api_url: 'https://api.github.com',
      poll_interval: 30_000,
      approvers: ['octocat'],
      settings: { max_reviews: 3, branch_prefix: 'agency/issue-', require_approval: true, on_worker_lost: 'requeue' },
    });
    expect(cloneUrl(config as never)).toBe('https://github.com/owner/repo.git');
  });

  it('names the line and field of each bad field, with the fix', async () => {
    const text = [
      'type: github',
      'name: myagent',
      'repo: not-a-repo',
      'api_url: ftp://example.com',
      'poll_interval: soon',
      'prompts:',
      '  work: "Fix {{.Nummer}} {{title}}"',
      '  review: ok',
      'settings:',
      '  max_reviews: -1',
      '  branch_prefix: "../evil"',
      '  merge: true',
    ].join('\n');
    expect(await load(text)).toBe(
      [
        '3:1: repo: must be owner/name, e.g. octo/widgets',
        '4:1: api_url: must be an http(s) URL, e.g. https://api.github.com',
        '5:1: poll_interval: must be a duration such as 90s, 30m or 1h30m, between 100ms and 24h (got "soon")',
        '7:3: prompts.work: unknown placeholder {{.Nummer}}: use {{number}}, {{title}} or {{body}}',
        '10:3: settings.max_reviews: Too small: expected number to be >=0',
        '11:3: settings.branch_prefix: must be a valid git branch prefix (no "..", no leading "/" or "-")',
        '12:3: settings.merge: unknown field; the fields here are max_reviews, branch_prefix, require_approval, on_worker_lost, initial_backoff, max_backoff; remove it, or see docs/fleet.md for the fields',
      ].join('\n'),
    );
  });

  it('requires approvers while approval is required, and the prompts', async () => {
    expect(await load('type: github\nname: a\nrepo: o/r\n')).toMatch(/prompts: .*\n?/);
    const noApprovers = MINIMAL.replace('approvers: [octocat]\n', '');
    expect(await load(noApprovers)).toMatch(
      /approvers: is required: must name at least one GitHub user whose 👍 approves, or set settings.require_approval: false/,
    );
    expect(await load(`${noApprovers}\nsettings:\n  require_approval: false\n`)).toMatchObject({ approvers: [] });
    expect(await load(MINIMAL.replace('type: github', 'type: scheduler'))).toMatch(/type: must be github/);
  });
});

describe('prompt templates', () => {
  it('fill in {{number}}, {{title}}, {{body}} and the Go-style {{.Number}}, and list unknown placeholders', () => {
    const fields = { number: 7, title: 'Fix it', body: 'Details {{title}}' };
    expect(renderPrompt('#{{number}} {{ title }}: {{body}}', fields)).toBe('#7 Fix it: Details {{title}}');
    expect(renderPrompt('#{{.Number}} {{.Title}}\n{{.Body}}', fields)).toBe('#7 Fix it\nDetails {{title}}');
    expect(unknownPlaceholders('{{.Number}} {{user}} {{ .Login }} {{user}}')).toEqual(['{{user}}', '{{ .Login }}']);
    expect(unknownPlaceholders('no placeholders, {single} braces')).toEqual([]);
  });
});
