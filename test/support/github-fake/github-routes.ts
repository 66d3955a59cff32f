// What the fake GitHub does for each operation of the subset, by operationId: list with GitHub's filters, create,
// update, and the validation errors GitHub gives (a second open pull request for a branch, a head branch the remote
// does not have).
import type { GitHubStore, IssueRecord, ReactionRecord } from './github-store.ts';

/** A request, parsed: the path's parameters, the query, the JSON body and who sent it. */
export type RouteRequest = {
  params: Record<string, string>;
  query: URLSearchParams;
  body: Record<string, unknown>;
  login: string;
};

/** An answer: status, JSON body and extra headers (pagination links). */
export type RouteAnswer = { status: number; body: unknown; headers?: Record<string, string> };

export const DOCS = 'https://docs.github.com/rest';

export const notFound = (): RouteAnswer => ({
  status: 404,
  body: { message: 'Not Found', documentation_url: DOCS, status: '404' },
});

/** GitHub's 422 `Validation Failed`, with its `errors`. */
export const validationFailed = (
  errors: Array<Record<string, unknown>>,
  message = 'Validation Failed',
): RouteAnswer => ({
  status: 422,
  body: { message, errors, documentation_url: DOCS, status: '422' },
});

type Handler = (store: GitHubStore, request: RouteRequest) => RouteAnswer;

const int = (value: string | undefined) => (value === undefined ? NaN : Number.parseInt(value, 10));

// `per_page` (30, at most 100) and `page`, with GitHub's Link header when there are more.
function page<T>(store: GitHubStore, request: RouteRequest, items: T[], render: (item: T) => unknown): RouteAnswer {
  const perPage = Math.min(100, int(request.query.get('per_page') ?? '30') || 30);
  const number = Math.max(1, int(request.query.get('page') ?? '1') || 1);
  const slice = items.slice((number - 1) * perPage, number * perPage);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const links: string[] = [];
  if (number < last) {
    const at = (n: number) => {
      const query = new URLSearchParams(request.query);
      query.set('page', String(n));
      query.set('per_page', String(perPage));
      return `<${store.site.api}${request.params.__path}?${query}>`;
    };
    links.push(`${at(number + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  }
  return { status: 200, body: slice.map(render), ...(links.length ? { headers: { link: links.join(', ') } } : {}) };
}

function sinceFilter(request: RouteRequest): (updatedAt: string) => boolean {
  const since = request.query.get('since');
  if (!since) return () => true;
  const at = Date.parse(since);
  return (updatedAt) => Date.parse(updatedAt) >= at;
}

function issueOr404(store: GitHubStore, request: RouteRequest, then: (issue: IssueRecord) => RouteAnswer) {
  const issue = store.issue(int(request.params.issue_number ?? request.params.pull_number));
  return issue ? then(issue) : notFound();
}

const listIssues: Handler = (store, request) => {
  const state = request.query.get('state') ?? 'open';
  const labels = (request.query.get('labels') ?? '').split(',').filter(Boolean);
  const creator = request.query.get('creator');
  const since = sinceFilter(request);
  const sort = request.query.get('sort') ?? 'created';
  const ascending = request.query.get('direction') === 'asc';
  const found = store.issues
    .filter((issue) => state === 'all' || issue.state === state)
    .filter((issue) => labels.every((label) => issue.labels.includes(label)))
    .filter((issue) => !creator || issue.user === creator)
    .filter((issue) => since(issue.updated_at))
    .sort((a, b) => {
      const key = (issue: IssueRecord) => (sort === 'updated' ? Date.parse(issue.updated_at) : issue.number);
      return ascending ? key(a) - key(b) : key(b) - key(a);
    });
  return page(store, request, found, (issue) => store.renderIssue(issue));
};

const updateIssue: Handler = (store, request) =>
  issueOr404(store, request, (issue) => {
    const { title, body, state, state_reason, labels, assignees } = request.body as Partial<IssueRecord>;
    if (typeof title === 'string') issue.title = title;
    if (body !== undefined) issue.body = body;
    if (labels) issue.labels = labels.map(String);
    if (assignees) issue.assignees = assignees.map(String);
    if (state && state !== issue.state) {
      issue.state = state;
      issue.closed_at = state === 'closed' ? store.time() : null;
      issue.state_reason = state === 'closed' ? (state_reason ?? 'completed') : 'reopened';
    }
    store.touch(issue);
    return { status: 200, body: store.renderIssue(issue) };
  });

function reactionsOf(store: GitHubStore, request: RouteRequest, on: ReactionRecord['on']): RouteAnswer {
  const content = request.query.get('content');
  const found = store.reactionsOn(on).filter((reaction) => !content || reaction.content === content);
  return page(store, request, found, (reaction) => store.renderReaction(reaction));
}

function react(store: GitHubStore, request: RouteRequest, on: ReactionRecord['on']): RouteAnswer {
  const { reaction, created } = store.addReaction(request.login, on, String(request.body.content));
  return { status: created ? 201 : 200, body: store.renderReaction(reaction) };
}

function commentOr404(store: GitHubStore, request: RouteRequest, then: (on: ReactionRecord['on']) => RouteAnswer) {
  const id = int(request.params.comment_id);
  return store.comments.some((comment) => comment.id === id) ? then({ comment: id }) : notFound();
}

const createPull: Handler = (store, request) => {
  const { head, base, title, body } = request.body as { head: string; base: string; title?: string; body?: string };
  const branch = head.includes(':') ? head.slice(head.indexOf(':') + 1) : head;
  const headSha = store.branchSha(branch);
  const baseSha = store.branchSha(base);
  if (!headSha) return validationFailed([{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
  if (!baseSha) return validationFailed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
  if (!title) return validationFailed([{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]);
  const open = store.issues.find((issue) => issue.pull?.head === branch && issue.state === 'open');
  if (open) {
    const message = `A pull request already exists for ${store.site.owner}:${branch}.`;
    return validationFailed([{ resource: 'PullRequest', code: 'custom', message }]);
  }
  const issue = store.createIssue(request.login, { title, body: body ?? null });
  issue.pull = { head: branch, base, head_sha: headSha, base_sha: baseSha };
  return { status: 201, body: store.renderPull(issue, true) };
};

const listPulls: Handler = (store, request) => {
  const state = request.query.get('state') ?? 'open';
  const head = request.query.get('head');
  const base = request.query.get('base');
  const found = store.issues
    .filter((issue) => issue.pull && (state === 'all' || issue.state === state))
    .filter((issue) => !head || `${store.site.owner}:${issue.pull!.head}` === head)
    .filter((issue) => !base || issue.pull!.base === base)
    .reverse();
  return page(store, request, found, (issue) => store.renderPull(issue, false));
};

const createReview: Handler = (store, request) =>
  issueOr404(store, request, (issue) => {
    if (!issue.pull) return notFound();
    const { event, body = '' } = request.body as { event?: string; body?: string };
    const state = event === 'APPROVE' ? 'APPROVED' : event === 'REQUEST_CHANGES' ? 'CHANGES_REQUESTED' : 'COMMENTED';
    const review = {
      id: store.id(),
      pull_number: issue.number,
      user: store.user(request.login).login,
      body,
      state,
      commit_id: issue.pull.head_sha,
      submitted_at: store.time(),
    } as const;
    store.reviews.push(review);
    store.touch(issue);
    return { status: 200, body: store.renderReview(review) };
  });

/** The handlers, by operationId. */
export const ROUTES: Record<string, Handler> = {
  'users/get-authenticated': (store, request) => ({ status: 200, body: store.renderAuthenticated(request.login) }),
  'issues/list-for-repo': listIssues,
  'issues/get': (store, request) =>
    issueOr404(store, request, (issue) => ({ status: 200, body: store.renderIssue(issue) })),
  'issues/create': (store, request) => {
    const { title, body, labels } = request.body as { title: string; body?: string; labels?: string[] };
    const issue = store.createIssue(request.login, { title: String(title), body: body ?? null, labels: labels ?? [] });
    return { status: 201, body: store.renderIssue(issue) };
  },
  'issues/update': updateIssue,
  'issues/list-comments': (store, request) =>
    issueOr404(store, request, (issue) => {
      const since = sinceFilter(request);
      const found = store.comments.filter((c) => c.issue_number === issue.number && since(c.updated_at));
      return page(store, request, found, (comment) => store.renderComment(comment));
    }),
  'issues/create-comment': (store, request) =>
    issueOr404(store, request, (issue) => ({
      status: 201,
      body: store.renderComment(store.addComment(request.login, issue, String(request.body.body))),
    })),
  'issues/add-assignees': (store, request) =>
    issueOr404(store, request, (issue) => {
      const wanted = ((request.body.assignees as unknown[] | undefined) ?? []).map((a) =>
        typeof a === 'string' ? a : String((a as { login: string }).login),
      );
      for (const login of wanted) if (!issue.assignees.includes(login)) issue.assignees.push(store.user(login).login);
      store.touch(issue);
      return { status: 201, body: store.renderIssue(issue) };
    }),
  'reactions/list-for-issue': (store, request) =>
    issueOr404(store, request, (issue) => reactionsOf(store, request, { issue: issue.number })),
  'reactions/create-for-issue': (store, request) =>
    issueOr404(store, request, (issue) => react(store, request, { issue: issue.number })),
  'reactions/list-for-issue-comment': (store, request) =>
    commentOr404(store, request, (on) => reactionsOf(store, request, on)),
  'reactions/create-for-issue-comment': (store, request) =>
    commentOr404(store, request, (on) => react(store, request, on)),
  'pulls/create': createPull,
  'pulls/get': (store, request) =>
    issueOr404(store, request, (issue) =>
      issue.pull ? { status: 200, body: store.renderPull(issue, true) } : notFound(),
    ),
  'pulls/list': listPulls,
  'pulls/list-reviews': (store, request) =>
    issueOr404(store, request, (issue) =>
      page(
        store,
        request,
        store.reviews.filter((review) => review.pull_number === issue.number),
        (review) => store.renderReview(review),
      ),
    ),
  'pulls/create-review': createReview,
};
