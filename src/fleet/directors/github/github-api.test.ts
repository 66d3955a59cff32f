// The GitHub port against the fake GitHub: what it reads, and how each failure GitHub sends is classified.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../../../core/errors.ts';
import { type GitHubFake, startGitHubFake } from '../../../../test/support/github-fake/github-fake.ts';
import { createGitHubApi, type GitHubApi } from './github-api.ts';
import { classifyGitHubError } from './github-errors.ts';

const TOKEN = 'ghp_apitest0123456789abcdefghijkl';
let fake: GitHubFake;
let api: GitHubApi;

beforeEach(async () => {
  fake = await startGitHubFake({ token: TOKEN });
  api = createGitHubApi({ baseUrl: `${fake.url}/`, repo: 'octo/widgets', token: TOKEN, clock: { now: Date.now } });
});

afterEach(async () => {
  expect(fake.drift).toEqual([]);
  await fake.close();
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => {
      expect(AgencyError.isInstance(error)).toBe(true);
      return error as AgencyError;
    },
  );

describe('the GitHub port', () => {
  it('reads and writes issues, comments, reactions and assignees', async () => {
    expect(await api.me()).toBe('agency-bot');
    const number = fake.human('ana').openIssue('[gh] one', 'body', ['bug']);
    expect(await api.openIssues()).toEqual([
      { number, title: '[gh] one', body: 'body', labels: ['bug'], state: 'open' },
    ]);
    const id = await api.comment(number, 'hello');
    expect(await api.comments(number)).toEqual([{ id, user: 'agency-bot', body: 'hello' }]);
    await api.react(number, 'eyes');
    expect(await api.reactions(number)).toEqual([{ user: 'agency-bot', content: 'eyes' }]);
    await api.assign(number, 'agency-bot');
    expect(fake.store.issue(number)!.assignees).toEqual(['agency-bot']);
    const status = await api.createIssue('[gh] status', 'running');
    await api.updateIssue(status, { state: 'closed' });
    expect(fake.store.issue(status)!.state).toBe('closed');
    expect(await api.pullFor('agency/issue-1')).toBeUndefined();
  });

  it('classifies 500, 502, a rate limit, a secondary rate limit, 401, 422 and a malformed body', async () => {
    const op = 'users/get-authenticated';
    const expectations: Array<[Parameters<GitHubFake['inject']>[0]['kind'], string, RegExp]> = [
      ['server_error', 'github_retryable', /^GitHub GET \/user: 500 Server Error; retrying$/],
      ['bad_gateway', 'github_retryable', /^GitHub GET \/user: 502 /],
      ['rate_limit', 'github_rate_limit', /^GitHub GET \/user: rate limited \(403 API rate limit exceeded/],
      ['secondary_rate_limit', 'github_rate_limit', /rate limited \(403 /],
      [
        'unauthorized',
        'github_fatal',
        /^GitHub GET \/user: 401 Bad credentials \(check AGENCY_ROOT\/credentials\/github-token\)$/,
      ],
      ['validation', 'github_fatal', /^GitHub GET \/user: 422 Validation Failed \(\{.*"code":"custom"/],
      ['malformed', 'github_retryable', /^GitHub GET \/user: the answer is not what GitHub documents/],
      ['wrong_shape', 'github_retryable', /^GitHub GET \/user: the answer is not what GitHub documents/],
    ];
    for (const [kind, code, message] of expectations) {
      fake.inject({ operation: op, kind, resetInSeconds: 30 });
      const error = await failure(api.me());
      expect([kind, error.code]).toEqual([kind, code]);
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain(TOKEN);
      if (code === 'github_rate_limit') expect(error.details!.retryAt).toBeGreaterThan(Date.now() + 25_000);
    }
    expect(await api.me()).toBe('agency-bot');
  });

  it('says a repository that is not there is fatal, naming the fields to check', async () => {
    const missing = createGitHubApi({ baseUrl: fake.url, repo: 'octo/nope', token: TOKEN, clock: { now: Date.now } });
    const error = await failure(missing.openIssues());
    expect(error.code).toBe('github_fatal');
    expect(error.message).toMatch(/404 Not Found \(check repo and api_url in the config/);
  });

  it('takes an unreachable API as retryable', async () => {
    await fake.close();
    const error = await failure(api.me());
    expect(error.code).toBe('github_retryable');
    fake = await startGitHubFake({ token: TOKEN });
  });
});

describe('classifyGitHubError', () => {
  it('reads the reset time from x-ratelimit-reset or retry-after, and 429 as a rate limit', () => {
    const now = 1_700_000_000_000;
    const limited = classifyGitHubError(
      { status: 403, response: { headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1700000100' } } },
      'GET /x',
      now,
    );
    expect([limited.code, limited.details!.retryAt]).toEqual(['github_rate_limit', 1_700_000_100_000]);
    const after = classifyGitHubError({ status: 429, response: { headers: { 'retry-after': '7' } } }, 'GET /x', now);
    expect(after.details!.retryAt).toBe(now + 7_000);
    const forbidden = classifyGitHubError({ status: 403, response: { headers: {} } }, 'GET /x', now);
    expect(forbidden.code).toBe('github_fatal');
    expect(forbidden.retryable).toBe(false);
  });
});
