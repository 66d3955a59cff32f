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

type Caller = {
  /** Sends one request (`route` with `params`, as Octokit names it), checks its answer with `schema`. */
  one<T>(route: string, params: Record<string, unknown>, schema: z.ZodType<T>): Promise<T>;
  /** Every page of a list. */
  all<T>(route: string, params: Record<string, unknown>, schema: z.ZodType<T>): Promise<T[]>;
};

// `GET /repos/{owner}/{repo}/issues/{issue_number}` with its parameters filled in, for messages.
const describeRequest = (route: string, params: Record<string, unknown>) =>
  route.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));

function createCaller(octokit: Octokit, where: { owner: string; repo: string }, clock: Clock): Caller {
  const send = async <T>(route: string, params: Record<string, unknown>, schema: z.ZodType<T>, list: boolean) => {
    const request = describeRequest(route, { ...where, ...params });
    let data: unknown;
    try {
      data = list
        ? await octokit.paginate(route, { ...where, ...params, per_page: 100 })
        : (await octokit.request(route, { ...where, ...params })).data;
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
  return {
    one: (route, params, schema) => send(route, params, schema, false),
    all: (route, params, schema) => send(route, params, z.array(schema), true),
  };
}

const toIssue = (issue: z.output<typeof issueSchema>): GitHubIssue => ({
  number: issue.number,
  title: issue.title,
  body: issue.body ?? '',
  state: issue.state,
  labels: issue.labels.map((label) => (typeof label === 'string' ? label : (label.name ?? ''))),
});

const ISSUE = '/repos/{owner}/{repo}/issues/{issue_number}';

/** The {@link GitHubApi} over Octokit. */
export function createGitHubApi({ baseUrl, repo, token, clock, fetch }: GitHubApiOptions): GitHubApi {
  const [owner, name] = repo.split('/') as [string, string];
  const octokit = new Octokit({
    auth: token,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    userAgent: 'agency-github-director',
    log: { debug() {}, info() {}, warn() {}, error() {} },
    request: { retries: 0, ...(fetch ? { fetch } : {}) },
  });
  const { one, all } = createCaller(octokit, { owner, repo: name }, clock);
  const on = (issue_number: number) => ({ issue_number });
  return {
    me: async () => (await one('GET /user', {}, userSchema)).login,
    openIssues: async () =>
      (await all('GET /repos/{owner}/{repo}/issues', { state: 'open' }, issueSchema))
        .filter((issue) => issue.pull_request === undefined)
        .map(toIssue),
    createIssue: async (title, body) =>
      (await one('POST /repos/{owner}/{repo}/issues', { title, body }, issueSchema)).number,
    updateIssue: async (number, change) => {
      await one(`PATCH ${ISSUE}`, { ...on(number), ...change }, issueSchema);
    },
    comments: async (number) =>
      (await all(`GET ${ISSUE}/comments`, on(number), commentSchema)).map((c) => ({
        id: c.id,
        user: c.user?.login ?? '',
        body: c.body ?? '',
      })),
    comment: async (number, body) => (await one(`POST ${ISSUE}/comments`, { ...on(number), body }, commentSchema)).id,
    assign: async (number, login) => {
      await one(`POST ${ISSUE}/assignees`, { ...on(number), assignees: [login] }, issueSchema);
    },
    reactions: async (number) =>
      (await all(`GET ${ISSUE}/reactions`, on(number), reactionSchema)).map((r) => ({
        user: r.user?.login ?? '',
        content: r.content,
      })),
    react: async (number, content) => {
      await one(`POST ${ISSUE}/reactions`, { ...on(number), content }, reactionSchema);
    },
    pullFor: async (branch) =>
      (
        await one('GET /repos/{owner}/{repo}/pulls', { state: 'all', head: `${owner}:${branch}` }, z.array(pullSchema))
      )[0],
    createPull: (pull) => one('POST /repos/{owner}/{repo}/pulls', pull, pullSchema),
  };
}
