// The fake GitHub itself, driven with Octokit as the director drives it: its answers keep to GitHub's published
// schemas, its state persists, and its failures look like GitHub's.
import { Octokit } from '@octokit/rest';
import { RequestError } from '@octokit/request-error';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bareRemote, git } from '../git-remote.ts';
import { type GitHubFake, startGitHubFake } from './github-fake.ts';

const TOKEN = 'ghp_faketoken0123456789abcdefghijklmnop';
let fake: GitHubFake;
let remote: string;
let octokit: Octokit;
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const repo = { owner: 'octo', repo: 'widgets' };

beforeEach(async () => {
  remote = await bareRemote();
  fake = await startGitHubFake({ token: TOKEN, remote });
  octokit = new Octokit({ auth: TOKEN, baseUrl: fake.url, log: silent });
});

afterEach(async () => {
  await fake.close();
});

async function failure(promise: Promise<unknown>): Promise<RequestError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestError);
  return error as RequestError;
}

describe('the fake GitHub', () => {
  it('keeps issues, comments, reactions, assignees, pulls and reviews across calls, in the published shapes', async () => {
    const me = await octokit.rest.users.getAuthenticated();
    expect(me.data.login).toBe('agency-bot');
    const number = fake.human('ana').openIssue('[bot] Fix the login', 'It fails', ['bug']);
    const issue = await octokit.rest.issues.get({ ...repo, issue_number: number });
    expect(issue.data).toMatchObject({ number, title: '[bot] Fix the login', labels: [{ name: 'bug' }] });

    const first = await octokit.rest.reactions.createForIssue({ ...repo, issue_number: number, content: 'eyes' });
    const again = await octokit.rest.reactions.createForIssue({ ...repo, issue_number: number, content: 'eyes' });
    expect([first.status, again.status, again.data.id]).toEqual([201, 200, first.data.id]);
    await octokit.rest.issues.addAssignees({ ...repo, issue_number: number, assignees: ['agency-bot'] });
    const comment = await octokit.rest.issues.createComment({ ...repo, issue_number: number, body: 'On it' });
    const humanComment = fake.human('ana').comment(number, 'thanks');
    fake.human('ana').react({ comment: humanComment }, '+1');

    const comments = await octokit.rest.issues.listComments({ ...repo, issue_number: number });
    expect(comments.data.map((c) => [c.id, c.user?.login, c.body])).toEqual([
      [comment.data.id, 'agency-bot', 'On it'],
      [humanComment, 'ana', 'thanks'],
    ]);
    const reactions = await octokit.rest.reactions.listForIssueComment({ ...repo, comment_id: humanComment });
    expect(reactions.data.map((r) => [r.user?.login, r.content])).toEqual([['ana', '+1']]);
    const after = await octokit.rest.issues.get({ ...repo, issue_number: number });
    expect(after.data.assignees?.map((a) => a.login)).toEqual(['agency-bot']);
    expect(after.data.reactions?.eyes).toBe(1);

    git(remote, 'branch', 'bot/issue-1', 'main');
    const pull = await octokit.rest.pulls.create({
      ...repo,
      head: 'bot/issue-1',
      base: 'main',
      title: 'Fix the login',
      body: `Closes #${number}`,
    });
    expect(pull.data.head.sha).toBe(git(remote, 'rev-parse', 'main'));
    const listed = await octokit.rest.pulls.list({ ...repo, head: 'octo:bot/issue-1' });
    expect(listed.data.map((p) => p.number)).toEqual([pull.data.number]);
    fake.human('ana').review(pull.data.number, 'COMMENT', 'Please rename it');
    const reviews = await octokit.rest.pulls.listReviews({ ...repo, pull_number: pull.data.number });
    expect(reviews.data.map((r) => [r.state, r.body])).toEqual([['COMMENTED', 'Please rename it']]);
    const issues = await octokit.rest.issues.listForRepo({ ...repo, state: 'all' });
    expect(issues.data.map((i) => [i.number, i.pull_request !== undefined])).toEqual([
      [pull.data.number, true],
      [number, false],
    ]);
    expect(fake.drift).toEqual([]);
  });

  it('refuses what GitHub refuses: a second pull request for a branch, a head the remote lacks, a bad body', async () => {
    const missing = await failure(octokit.rest.pulls.create({ ...repo, head: 'nope', base: 'main', title: 'x' }));
    expect(missing.status).toBe(422);
    expect(missing.response?.data).toMatchObject({ errors: [{ field: 'head', code: 'invalid' }] });
    git(remote, 'branch', 'b1', 'main');
    await octokit.rest.pulls.create({ ...repo, head: 'b1', base: 'main', title: 'x' });
    const twice = await failure(octokit.rest.pulls.create({ ...repo, head: 'b1', base: 'main', title: 'x' }));
    expect(twice.message).toMatch(/A pull request already exists for octo:b1/);
    const number = fake.human('ana').openIssue('t');
    const bad = await failure(
      octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/reactions', {
        ...repo,
        issue_number: number,
        content: 'thumbs' as never,
      }),
    );
    expect(bad.status).toBe(422);
    expect(bad.message).toMatch(/Invalid request.*content must be equal to one of the allowed values/s);
    const wrongToken = new Octokit({ auth: 'ghp_wrong', baseUrl: fake.url, log: silent });
    expect((await failure(wrongToken.rest.users.getAuthenticated())).status).toBe(401);
    expect(fake.drift).toEqual([]);
  });

  it('records and refuses an answer of its own that drifts from the schemas', async () => {
    const number = fake.human('ana').openIssue('t');
    fake.human('ana').react({ issue: number }, 'thumbs-up');
    const error = await failure(octokit.rest.reactions.listForIssue({ ...repo, issue_number: number }));
    expect(error.status).toBe(500);
    expect(fake.drift).toEqual([expect.stringMatching(/^reactions\/list-for-issue 200: \/0\/content must be equal/)]);
  });

  it('answers injected failures as GitHub does, then recovers', async () => {
    const op = 'users/get-authenticated';
    fake.inject({ operation: op, kind: 'server_error' });
    expect((await failure(octokit.rest.users.getAuthenticated())).status).toBe(500);
    fake.inject({ operation: op, kind: 'rate_limit', resetInSeconds: 30 });
    const limited = await failure(octokit.rest.users.getAuthenticated());
    expect(limited.status).toBe(403);
    expect(limited.response?.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(limited.response?.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 + 20);
    fake.inject({ operation: op, kind: 'secondary_rate_limit', resetInSeconds: 7 });
    expect((await failure(octokit.rest.users.getAuthenticated())).response?.headers['retry-after']).toBe('7');
    fake.inject({ operation: op, kind: 'validation' });
    expect((await failure(octokit.rest.users.getAuthenticated())).response?.data).toMatchObject({
      message: 'Validation Failed',
      errors: [{ code: 'custom' }],
    });
    fake.inject({ operation: op, kind: 'malformed' });
    expect((await octokit.rest.users.getAuthenticated()).data).toBe('{"id": 1, "node_id": "trunc');
    fake.inject({ operation: op, kind: 'bad_gateway', times: 2 });
    expect((await failure(octokit.rest.users.getAuthenticated())).status).toBe(502);
    expect((await failure(octokit.rest.users.getAuthenticated())).status).toBe(502);
    expect((await octokit.rest.users.getAuthenticated()).data.login).toBe('agency-bot');
    expect(fake.count(op)).toBe(8);
  });

  it('pages lists with a Link header, and filters issues by state, label and since', async () => {
    for (let i = 1; i <= 35; i++) fake.human('ana').openIssue(`issue ${i}`, '', i % 5 === 0 ? ['bot'] : []);
    const all = await octokit.paginate(octokit.rest.issues.listForRepo, { ...repo, per_page: 10 });
    expect(all).toHaveLength(35);
    const labelled = await octokit.rest.issues.listForRepo({ ...repo, labels: 'bot' });
    expect(labelled.data.map((i) => i.number)).toEqual([35, 30, 25, 20, 15, 10, 5]);
    fake.store.issue(3)!.updated_at = '2099-01-01T00:00:00Z';
    const since = await octokit.rest.issues.listForRepo({ ...repo, since: '2098-01-01T00:00:00Z' });
    expect(since.data.map((i) => i.number)).toEqual([3]);
    expect(fake.drift).toEqual([]);
  });

  it('holds a request before or after acting on it until released', async () => {
    const number = fake.human('ana').openIssue('t');
    const held = fake.pause({ operation: 'issues/create-comment' }, 'after');
    const pending = octokit.rest.issues.createComment({ ...repo, issue_number: number, body: 'hello' });
    await held.arrived;
    expect(fake.store.comments.map((c) => c.body)).toEqual(['hello']);
    held.release();
    expect((await pending).status).toBe(201);
  });
});
