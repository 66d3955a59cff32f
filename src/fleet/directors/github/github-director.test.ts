// The GitHub director's flow against the fake GitHub (checked against GitHub's published schemas), a bare git
// remote and a scripted dispatch: issue → 👀 → branch → pull request → review → 👍 → done, follow-up comments, the
// status issue, and what a restart finds.
import { afterEach, describe, expect, it } from 'vitest';
import { commitsOn, filesOn } from '../../../../test/support/git-remote.ts';
import {
  type GitHubDirectorFixture,
  githubDirectorFixture,
  until,
} from '../../../../test/support/github-director-fixture.ts';

let fixture: GitHubDirectorFixture;

afterEach(async () => {
  expect(fixture.fake.drift).toEqual([]);
  await fixture.close();
});

const phase = async (number: number) => (await fixture.state().catch(() => undefined))?.issues[String(number)]?.phase;
const commentsOn = (number: number) => fixture.fake.store.comments.filter((c) => c.issue_number === number);
const pulls = () => fixture.fake.store.issues.filter((issue) => issue.pull);

describe('the GitHub director', () => {
  it('takes a [name] issue through work, review, a pull request, a follow-up and a 👍 to done, never merging', async () => {
    fixture = await githubDirectorFixture();
    const ana = fixture.fake.human('ana');
    const other = ana.openIssue('Not for the director', 'ignore me');
    const number = ana.openIssue('[gh] Add a widget', 'The widget goes in widget.ts');
    const run = await fixture.open();
    await until(async () => (await phase(number)) === 'awaiting_approval', 'the pull request');

    const issue = fixture.fake.store.issue(number)!;
    expect(fixture.fake.store.reactionsOn({ issue: number }).map((r) => [r.user, r.content])).toEqual([
      ['agency-bot', 'eyes'],
    ]);
    expect(issue.assignees).toEqual(['agency-bot']);
    expect(fixture.fake.store.reactionsOn({ issue: other })).toEqual([]);
    const [pull] = pulls();
    expect(pull!.pull).toMatchObject({ head: `agency/issue-${number}`, base: 'main' });
    expect(pull!.body).toContain(`Closes #${number}`);
    expect(filesOn(fixture.remote, `agency/issue-${number}`)).toEqual(['README.md', `issue-${number}.txt`]);
    expect(commitsOn(fixture.remote, `agency/issue-${number}`)[0]).toBe(`#${number}: [gh] Add a widget`);
    expect(commentsOn(number).map((c) => c.body)).toEqual([
      expect.stringMatching(new RegExp(`^Opened #${pull!.number} `)),
    ]);
    const [task, ...more] = fixture.dispatch.tasks();
    expect(more).toEqual([]);
    expect(task!.workdir).toBe(`${fixture.dir}/workspaces/issue-${number}`);
    expect(task!.prompts).toEqual([
      `You are working on issue #${number}: [gh] Add a widget\nThe widget goes in widget.ts`,
      `Please review your change to #${number}; say LGTM if it is ready.`,
    ]);

    ana.comment(pull!.number, 'Please also note it in the README');
    await until(() => commentsOn(number).some((c) => c.body.startsWith('Pushed a follow-up')), 'the follow-up');
    expect(fixture.dispatch.tasks()[0]!.prompts).toHaveLength(3);
    expect(fixture.dispatch.tasks()[0]!.prompts[2]).toContain('@ana wrote:\nPlease also note it in the README');
    expect(filesOn(fixture.remote, `agency/issue-${number}`)).toContain('follow-up-3.txt');

    fixture.fake.human('mallory').react({ issue: pull!.number }, '+1');
    ana.react({ issue: pull!.number }, '+1');
    await until(async () => (await phase(number)) === 'done', 'done');
    expect(commentsOn(number).at(-1)!.body).toMatch(
      new RegExp(`^Done: #${pull!.number} approved by @ana\\. It is yours to merge\\.`),
    );
    expect(fixture.fake.store.issue(pull!.number)!.state).toBe('open');
    expect(fixture.dispatch.tasks()[0]!.state).toBe('completed');
    expect(fixture.fake.count('pulls/create')).toBe(1);

    const status = fixture.fake.store.issues.find((i) => i.title === '[gh] status')!;
    await until(() => fixture.fake.store.issue(status.number)!.body?.includes(`#${number}: done`), 'the status');
    await run.stop();
    expect(fixture.fake.store.issue(status.number)!.state).toBe('closed');
    expect((await fixture.state()).status_issue).toBeNull();
  });

  it('takes issues carrying the configured label, and leaves its own status issue alone', async () => {
    fixture = await githubDirectorFixture({ extra: 'label: agency' });
    const number = fixture.fake.human('ana').openIssue('Labelled, no prefix', '', ['agency']);
    await fixture.open();
    await until(async () => (await phase(number)) === 'awaiting_approval', 'the pull request');
    const state = await fixture.state();
    expect(Object.keys(state.issues)).toEqual([String(number)]);
    expect(fixture.fake.store.issue(state.status_issue!)!.title).toBe('[gh] status');
  });

  it('reviews up to max_reviews times until LGTM, then opens the pull request saying how it went', async () => {
    fixture = await githubDirectorFixture({
      script: ({ prompt, turn }) =>
        /review/.test(prompt)
          ? { output: turn < 3 ? 'Needs work.' : 'LGTM now.' }
          : { output: 'ok', files: { 'a.txt': 'a' } },
    });
    const number = fixture.fake.human('ana').openIssue('[gh] Review me');
    await fixture.open();
    await until(async () => (await phase(number)) === 'awaiting_approval', 'the pull request');
    expect(fixture.dispatch.tasks()[0]!.prompts).toHaveLength(3);
    expect(commentsOn(number)[0]!.body).toContain('The review said LGTM.');
  });

  it('opens the pull request without LGTM once max_reviews are spent, and is done at once without require_approval', async () => {
    fixture = await githubDirectorFixture({
      extra: 'approvers: []\n',
      script: ({ prompt }) =>
        /review/.test(prompt) ? { output: 'Not yet.' } : { output: 'ok', files: { 'a.txt': 'a' } },
    });
    const { writeFile, readFile } = await import('node:fs/promises');
    const file = `${fixture.dir}/config.yaml`;
    const text = (await readFile(file, 'utf8'))
      .replace('approvers: [ana]\n', '')
      .replace('  initial_backoff', '  require_approval: false\n  initial_backoff');
    await writeFile(file, text);
    const number = fixture.fake.human('ana').openIssue('[gh] Never good');
    await fixture.open();
    await until(async () => (await phase(number)) === 'done', 'done');
    expect(fixture.dispatch.tasks()[0]!.prompts).toHaveLength(3);
    expect(commentsOn(number).map((c) => c.body.split('\n')[0])).toEqual([
      expect.stringContaining('No LGTM after 2 review(s).'),
      expect.stringContaining('without approval (not required)'),
    ]);
  });
});
