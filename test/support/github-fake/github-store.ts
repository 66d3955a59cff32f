// The state of the fake GitHub: users, one repository's issues and pull requests (one numbering, as on GitHub),
// comments, reactions and reviews. Everything persists across calls; the renderers turn records into the objects
// GitHub's schemas describe.
import { execFileSync } from 'node:child_process';
import {
  type FakeUser,
  nodeId,
  publicUser,
  reactionRollup,
  repository,
  simpleUser,
  type Site,
} from './github-objects.ts';

export type IssueRecord = {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  state_reason: 'completed' | 'not_planned' | 'reopened' | null;
  user: string;
  labels: string[];
  assignees: string[];
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  pull?: { head: string; base: string; head_sha: string; base_sha: string };
};
export type CommentRecord = {
  id: number;
  issue_number: number;
  user: string;
  body: string;
  created_at: string;
  updated_at: string;
};
export type ReactionRecord = {
  id: number;
  on: { issue: number } | { comment: number };
  user: string;
  content: string;
  created_at: string;
};
export type ReviewRecord = {
  id: number;
  pull_number: number;
  user: string;
  body: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED';
  commit_id: string;
  submitted_at: string;
};

/** Seconds-precision ISO time, as GitHub writes it. */
export const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export class GitHubStore {
  readonly users = new Map<string, FakeUser>();
  readonly issues: IssueRecord[] = [];
  readonly comments: CommentRecord[] = [];
  readonly reactions: ReactionRecord[] = [];
  readonly reviews: ReviewRecord[] = [];
  private nextId = 1000;
  readonly site: Site;
  readonly now: () => number;
  /** The bare repository pushes go to: branches exist when it has them. */
  readonly remote: string | undefined;

  constructor(site: Site, now: () => number, remote: string | undefined) {
    this.site = site;
    this.now = now;
    this.remote = remote;
  }

  id(): number {
    return this.nextId++;
  }

  time(): string {
    return isoSeconds(this.now());
  }

  user(login: string): FakeUser {
    let user = this.users.get(login);
    if (!user) this.users.set(login, (user = { id: this.users.size + 1, login, name: null }));
    return user;
  }

  issue(number: number): IssueRecord | undefined {
    return this.issues.find((issue) => issue.number === number);
  }

  /** Touches an issue (and so its `updated_at`), as a comment or an edit does on GitHub. */
  touch(issue: IssueRecord): void {
    issue.updated_at = this.time();
  }

  createIssue(user: string, fields: { title: string; body?: string | null; labels?: string[] }): IssueRecord {
    const time = this.time();
    const issue: IssueRecord = {
      number: this.issues.length + 1,
      title: fields.title,
      body: fields.body ?? null,
      state: 'open',
      state_reason: null,
      user: this.user(user).login,
      labels: fields.labels ?? [],
      assignees: [],
      created_at: time,
      updated_at: time,
      closed_at: null,
    };
    this.issues.push(issue);
    return issue;
  }

  addComment(user: string, issue: IssueRecord, body: string): CommentRecord {
    const time = this.time();
    const comment = { id: this.id(), issue_number: issue.number, user: this.user(user).login, body, created_at: time };
    const record = { ...comment, updated_at: time };
    this.comments.push(record);
    this.touch(issue);
    return record;
  }

  /** GitHub answers 200 with the existing reaction when the same user reacts the same way twice. */
  addReaction(user: string, on: ReactionRecord['on'], content: string): { reaction: ReactionRecord; created: boolean } {
    const same = (r: ReactionRecord) => r.user === user && r.content === content && sameSubject(r.on, on);
    const existing = this.reactions.find(same);
    if (existing) return { reaction: existing, created: false };
    const reaction = { id: this.id(), on, user: this.user(user).login, content, created_at: this.time() };
    this.reactions.push(reaction);
    return { reaction, created: true };
  }

  reactionsOn(on: ReactionRecord['on']): ReactionRecord[] {
    return this.reactions.filter((reaction) => sameSubject(reaction.on, on));
  }

  /** The commit a branch of the bare remote points at, or undefined when it has no such branch. */
  branchSha(branch: string): string | undefined {
    if (!this.remote) return undefined;
    try {
      return execFileSync('git', ['-C', this.remote, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
        encoding: 'utf8',
      }).trim();
    } catch {
      return undefined;
    }
  }

  // Renderers: records → GitHub's objects.

  renderUser(login: string) {
    return simpleUser(this.site, this.user(login));
  }

  renderAuthenticated(login: string) {
    return publicUser(this.site, this.user(login), '2020-01-01T00:00:00Z');
  }

  private repoUrl() {
    return `${this.site.api}/repos/${this.site.owner}/${this.site.repo}`;
  }

  private htmlUrl() {
    return `${this.site.html}/${this.site.owner}/${this.site.repo}`;
  }

  renderIssue(issue: IssueRecord) {
    const url = `${this.repoUrl()}/issues/${issue.number}`;
    const html = `${this.htmlUrl()}/${issue.pull ? 'pull' : 'issues'}/${issue.number}`;
    const assignees = issue.assignees.map((login) => this.renderUser(login));
    return {
      id: 100_000 + issue.number,
      node_id: nodeId('Issue', issue.number),
      url,
      repository_url: this.repoUrl(),
      labels_url: `${url}/labels{/name}`,
      comments_url: `${url}/comments`,
      events_url: `${url}/events`,
      html_url: html,
      number: issue.number,
      state: issue.state,
      state_reason: issue.state_reason,
      title: issue.title,
      body: issue.body,
      user: this.renderUser(issue.user),
      labels: issue.labels.map((name, i) => ({
        id: 500 + i,
        node_id: nodeId('Label', 500 + i),
        url: `${this.repoUrl()}/labels/${encodeURIComponent(name)}`,
        name,
        description: null,
        color: 'ededed',
        default: false,
      })),
      assignee: assignees[0] ?? null,
      assignees,
      milestone: null,
      locked: false,
      active_lock_reason: null,
      comments: this.comments.filter((comment) => comment.issue_number === issue.number).length,
      ...(issue.pull
        ? {
            pull_request: {
              url: `${this.repoUrl()}/pulls/${issue.number}`,
              html_url: html,
              diff_url: `${html}.diff`,
              patch_url: `${html}.patch`,
              merged_at: null,
            },
          }
        : {}),
      closed_at: issue.closed_at,
      created_at: issue.created_at,
      updated_at: issue.updated_at,
      author_association: 'OWNER',
      reactions: reactionRollup(
        `${url}/reactions`,
        this.reactionsOn({ issue: issue.number }).map((r) => r.content),
      ),
    };
  }

  renderComment(comment: CommentRecord) {
    const url = `${this.repoUrl()}/issues/comments/${comment.id}`;
    return {
      id: comment.id,
      node_id: nodeId('IssueComment', comment.id),
      url,
      html_url: `${this.htmlUrl()}/issues/${comment.issue_number}#issuecomment-${comment.id}`,
      body: comment.body,
      user: this.renderUser(comment.user),
      created_at: comment.created_at,
      updated_at: comment.updated_at,
      issue_url: `${this.repoUrl()}/issues/${comment.issue_number}`,
      author_association: 'CONTRIBUTOR',
      reactions: reactionRollup(
        `${url}/reactions`,
        this.reactionsOn({ comment: comment.id }).map((r) => r.content),
      ),
    };
  }

  renderReaction(reaction: ReactionRecord) {
    return {
      id: reaction.id,
      node_id: nodeId('Reaction', reaction.id),
      user: this.renderUser(reaction.user),
      content: reaction.content,
      created_at: reaction.created_at,
    };
  }

  renderPull(issue: IssueRecord, full: boolean) {
    const pull = issue.pull!;
    const url = `${this.repoUrl()}/pulls/${issue.number}`;
    const html = `${this.htmlUrl()}/pull/${issue.number}`;
    const owner = this.user(this.site.owner);
    const repo = repository(this.site, owner);
    const end = (ref: string, sha: string) => ({
      label: `${this.site.owner}:${ref}`,
      ref,
      sha,
      repo,
      user: simpleUser(this.site, owner),
    });
    const link = (href: string) => ({ href });
    const base = {
      url,
      id: 200_000 + issue.number,
      node_id: nodeId('PullRequest', issue.number),
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: `${this.repoUrl()}/issues/${issue.number}`,
      commits_url: `${url}/commits`,
      review_comments_url: `${url}/comments`,
      review_comment_url: `${this.repoUrl()}/pulls/comments{/number}`,
      comments_url: `${this.repoUrl()}/issues/${issue.number}/comments`,
      statuses_url: `${this.repoUrl()}/statuses/${pull.head_sha}`,
      number: issue.number,
      state: issue.state,
      locked: false,
      title: issue.title,
      user: this.renderUser(issue.user),
      body: issue.body,
      labels: [],
      milestone: null,
      active_lock_reason: null,
      created_at: issue.created_at,
      updated_at: issue.updated_at,
      closed_at: issue.closed_at,
      merged_at: null,
      merge_commit_sha: null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_teams: [],
      head: end(pull.head, pull.head_sha),
      base: end(pull.base, pull.base_sha),
      _links: {
        self: link(url),
        html: link(html),
        issue: link(`${this.repoUrl()}/issues/${issue.number}`),
        comments: link(`${this.repoUrl()}/issues/${issue.number}/comments`),
        review_comments: link(`${url}/comments`),
        review_comment: link(`${this.repoUrl()}/pulls/comments{/number}`),
        commits: link(`${url}/commits`),
        statuses: link(`${this.repoUrl()}/statuses/${pull.head_sha}`),
      },
      author_association: 'OWNER',
      auto_merge: null,
      draft: false,
    };
    if (!full) return base;
    return {
      ...base,
      merged: false,
      mergeable: true,
      mergeable_state: 'clean',
      merged_by: null,
      comments: this.comments.filter((comment) => comment.issue_number === issue.number).length,
      review_comments: 0,
      maintainer_can_modify: false,
      commits: 1,
      additions: 1,
      deletions: 0,
      changed_files: 1,
    };
  }

  renderReview(review: ReviewRecord) {
    const pullUrl = `${this.repoUrl()}/pulls/${review.pull_number}`;
    const html = `${this.htmlUrl()}/pull/${review.pull_number}#pullrequestreview-${review.id}`;
    return {
      id: review.id,
      node_id: nodeId('PullRequestReview', review.id),
      user: this.renderUser(review.user),
      body: review.body,
      state: review.state,
      html_url: html,
      pull_request_url: pullUrl,
      _links: { html: { href: html }, pull_request: { href: pullUrl } },
      submitted_at: review.submitted_at,
      commit_id: review.commit_id,
      author_association: 'COLLABORATOR',
    };
  }
}

function sameSubject(a: ReactionRecord['on'], b: ReactionRecord['on']): boolean {
  return 'issue' in a ? 'issue' in b && a.issue === b.issue : 'comment' in b && a.comment === b.comment;
}
