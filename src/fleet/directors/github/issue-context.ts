// What the GitHub director's steps work with, and the two helpers every step uses: change one issue's record in
// `state.json`, and post a comment at most once (each comment carries a hidden marker; before posting, the issue's
// comments are searched for it, so a kill -9 between posting and recording does not post it twice).
import type { Timers } from '../../../core/clock.ts';
import type { DirectorHistory, DirectorLog, StateStore, WorkspaceLocks } from '../director.ts';
import type { TaskDispatch } from '../task-dispatch.ts';
import type { GitHubApi } from './github-api.ts';
import type { GitHubConfig } from './github-config.ts';
import type { GitHubState, IssueState } from './github-state.ts';
import type { GitOptions } from './git-workspace.ts';
import { recordPhase } from './issue-history.ts';

/** Everything the GitHub director needs; tests pass fakes of the dispatch, the timers and the log. */
export type GitHubDirectorDeps = {
  config: GitHubConfig;
  api: GitHubApi;
  /** How git reaches the repository (its URL, the token, the commits' author). */
  git: Omit<GitOptions, 'signal'>;
  /** Where the clones live: `directors/<name>/workspaces`, one `issue-<n>` each. */
  workspaces: string;
  dispatch: TaskDispatch;
  state: StateStore<GitHubState>;
  /** One entry per issue (`issue-<n>`), a line each time its phase changes. */
  history: DirectorHistory;
  /** Each turn holds its clone's workspace lock. */
  locks: WorkspaceLocks;
  timers: Timers;
  log: DirectorLog;
  /** Aborts when shutdown begins: nothing new is started. */
  stopping: AbortSignal;
  /** Aborts when the director must stop now; work in flight stays as `state.json` says. */
  signal: AbortSignal;
  /** @default Math.random */
  random?: () => number;
};

/** The deps and the token's own login, as every step sees them. */
export type IssueContext = GitHubDirectorDeps & { login: string };

/** The record of issue `number`. */
export function issueOf(context: IssueContext, number: number): IssueState {
  const issue = context.state.get().issues[String(number)];
  if (!issue) throw new Error(`issue #${number} is not in state.json`);
  return issue;
}

/**
 * Changes issue `number`'s record durably (a new phase clears its failure, and is noted in the issue's history
 * entry); resolves with the new record.
 */
export async function patchIssue(
  context: IssueContext,
  number: number,
  change: Partial<IssueState>,
): Promise<IssueState> {
  const before = issueOf(context, number).phase;
  const state = await context.state.update((current) => {
    const issue = current.issues[String(number)];
    if (!issue) throw new Error(`issue #${number} is not in state.json`);
    // A step that moves the issue on has succeeded: the failure it was retrying is over.
    const moved = change.phase !== undefined && change.phase !== issue.phase && !('failure' in change);
    const next = { ...issue, ...change, ...(moved ? { failure: null } : {}) };
    return { ...current, issues: { ...current.issues, [String(number)]: next } };
  });
  const issue = state.issues[String(number)]!;
  if (issue.phase !== before) await recordPhase(context, issue);
  return issue;
}

/** The hidden marker of the director's comment `key` (`pull`, `done`, `follow-up-17`…). */
export function commentMarker(name: string, key: string): string {
  return `<!-- agency:${name}:${key} -->`;
}

/** True when `body` carries any of the director's markers (its own comments are never follow-up work). */
export function isDirectorComment(name: string, body: string): boolean {
  return body.includes(`<!-- agency:${name}:`);
}

/**
 * Posts `text` on issue (or pull request) `number` once: when a comment of the director's user already carries the
 * marker of `key`, its id is returned instead.
 */
export async function commentOnce(context: IssueContext, number: number, key: string, text: string): Promise<number> {
  const marker = commentMarker(context.config.name, key);
  const existing = (await context.api.comments(number)).find(
    (comment) => comment.user === context.login && comment.body.includes(marker),
  );
  if (existing) return existing.id;
  return context.api.comment(number, `${text}\n\n${marker}`);
}
