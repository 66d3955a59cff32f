// The part of GitHub's REST API the GitHub director uses, as a small port, and its implementation over Octokit
// (`@octokit/rest`) with a configurable base URL for GitHub Enterprise. Every answer is checked for the fields the
// director reads; every failure is classified (github-errors.ts). The token stays inside Octokit's auth header.
import { Octokit } from '@octokit/rest';
import { z } from 'zod';
import type { Clock } from '../../../core/clock.ts';
import { classifyGitHubError, malformedAnswer } from './github-errors.ts';

/** An open issue, as the director reads it (pull requests left out). */
export type GitHubIssue = { number: number; title: string; body: string; labels: string[]; state: string };
/** A comment on an issue or a pull request's conversation. */
export type GitHubComment = { id: number; user: string; body: string };
/** A reaction: who, and which (`+1`, `eyes`…). */
export type GitHubReaction = { user: string; content: string };
/** A pull request, as the director reads it. */
export type GitHubPull = { number: number; state: string; html_url: string };

/** What the GitHub director does on GitHub. Each call throws an AgencyError classified by `classifyGitHubError`. */
export type GitHubApi = {
  /** The token's own user. */
  me(): Promise<string>;
  /** Open issues (not pull requests), newest first, all pages. */
  openIssues(): Promise<GitHubIssue[]>;
  createIssue(title: string, body: string): Promise<number>;
  updateIssue(number: number, change: { body?: string; state?: 'open' | 'closed' }): Promise<void>;
  /** Comments on an issue or a pull request (which is an issue too), oldest first, all pages. */
  comments(number: number): Promise<GitHubComment[]>;
  comment(number: number, body: string): Promise<number>;
  assign(number: number, login: string): Promise<void>;
  /** Reactions on an issue or a pull request. */
  reactions(number: number): Promise<GitHubReaction[]>;
  react(number: number, content: 'eyes' | '+1' | 'rocket'): Promise<void>;
  /** The pull request from `branch` (any state), if there is one. */
  pullFor(branch: string): Promise<GitHubPull | undefined>;
  createPull(pull: { title: string; body: string; head: string; base: string }): Promise<GitHubPull>;
};

const userSchema = z.object({ login: z.string() });
const issueSchema = z.object({
  number: z.int(),
  title: z.string(),
  body: z.string().nullish(),
  state: z.string(),
  labels: z.array(z.union([z.string(), z.object({ name: z.string().nullish() })])),
  pull_request: z.unknown().optional(),
});
const commentSchema = z.object({ id: z.int(), body: z.string().nullish(), user: userSchema.nullable() });
const reactionSchema = z.object({ content: z.string(), user: userSchema.nullable() });
const pullSchema = z.object({ number: z.int(), state: z.string(), html_url: z.string() });

/** Where the repository is and how to reach it. */
export type GitHubApiOptions = {
  baseUrl: string;
  repo: string;
  token: string;
  clock: Clock;
  /** Octokit's fetch: tests pass one that counts or fails requests. */
  fetch?: typeof fetch;
};

/** The {@link GitHubApi} over Octokit. */
export function createGitHubApi({ baseUrl, repo, token, clock, fetch }: GitHubApiOptions): GitHubApi {
  const [owner, name] = repo.split('/') as [string, string];
  const where = { owner, repo: name };
  const octokit = new Octokit({
    auth: token,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    userAgent: 'agency-github-director',
    log: { debug() {}, info() {}, warn() {}, error() {} },
    request: { retries: 0, ...(fetch ? { fetch } : {}) },
  });
  const call = async <T>(request: string, schema: z.ZodType<T>, send: () => Promise<{ data: unknown }>) => {
    let data: unknown;
    try {
      ({ data } = await send());
    } catch (error) {
      // Octokit throws a RequestError (with a status) for every HTTP failure; anything else came from reading a body
      // that is not what GitHub documents (JSON cut short, a string where a list belongs).
      const status = (error as { status?: unknown } | null)?.status;
      if (typeof status !== 'number' && !(error instanceof Error && error.name === 'AbortError'))
        throw malformedAnswer(request, error instanceof Error ? error.message.slice(0, 200) : String(error));
      throw classifyGitHubError(error, request, clock.now());
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) throw malformedAnswer(request, parsed.error.issues[0]?.message ?? 'unexpected shape');
    return parsed.data;
  };
  const all = <T>(request: string, schema: z.ZodType<T>, route: string, params: Record<string, unknown>) =>
    call(request, z.array(schema), async () => ({
      data: await octokit.paginate(route, { ...where, ...params, per_page: 100 }),
    }));
  const toIssue = (issue: z.output<typeof issueSchema>): GitHubIssue => ({
    number: issue.number,
    title: issue.title,
    body: issue.body ?? '',
    state: issue.state,
    labels: issue.labels.map((label) => (typeof label === 'string' ? label : (label.name ?? ''))),
  });
  const path = (suffix: string) => `/repos/${repo}${suffix}`;
  return {
    me: async () => (await call('GET /user', userSchema, () => octokit.rest.users.getAuthenticated())).login,
    openIssues: async () =>
      (await all(`GET ${path('/issues')}`, issueSchema, 'GET /repos/{owner}/{repo}/issues', { state: 'open' }))
        .filter((issue) => issue.pull_request === undefined)
        .map(toIssue),
    createIssue: async (title, body) =>
      (await call(`POST ${path('/issues')}`, issueSchema, () => octokit.rest.issues.create({ ...where, title, body })))
        .number,
    updateIssue: async (number, change) => {
      await call(`PATCH ${path(`/issues/${number}`)}`, issueSchema, () =>
        octokit.rest.issues.update({ ...where, issue_number: number, ...change }),
      );
    },
    comments: async (number) =>
      (
        await all(
          `GET ${path(`/issues/${number}/comments`)}`,
          commentSchema,
          `GET /repos/{owner}/{repo}/issues/{issue_number}/comments`,
          {
            issue_number: number,
          },
        )
      ).map((c) => ({ id: c.id, user: c.user?.login ?? '', body: c.body ?? '' })),
    comment: async (number, body) =>
      (
        await call(`POST ${path(`/issues/${number}/comments`)}`, commentSchema, () =>
          octokit.rest.issues.createComment({ ...where, issue_number: number, body }),
        )
      ).id,
    assign: async (number, login) => {
      await call(`POST ${path(`/issues/${number}/assignees`)}`, issueSchema, () =>
        octokit.rest.issues.addAssignees({ ...where, issue_number: number, assignees: [login] }),
      );
    },
    reactions: async (number) =>
      (
        await all(
          `GET ${path(`/issues/${number}/reactions`)}`,
          reactionSchema,
          `GET /repos/{owner}/{repo}/issues/{issue_number}/reactions`,
          {
            issue_number: number,
          },
        )
      ).map((r) => ({ user: r.user?.login ?? '', content: r.content })),
    react: async (number, content) => {
      await call(`POST ${path(`/issues/${number}/reactions`)}`, reactionSchema, () =>
        octokit.rest.reactions.createForIssue({ ...where, issue_number: number, content }),
      );
    },
    pullFor: async (branch) =>
      (
        await call(`GET ${path('/pulls')}`, z.array(pullSchema), () =>
          octokit.rest.pulls.list({ ...where, state: 'all', head: `${owner}:${branch}` }),
        )
      )[0],
    createPull: (pull) =>
      call(`POST ${path('/pulls')}`, pullSchema, () => octokit.rest.pulls.create({ ...where, ...pull })),
  };
}
