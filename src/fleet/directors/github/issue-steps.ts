// One issue's way through the GitHub director, a step per phase. Each step does its side effects in an order that
// can be repeated after a kill -9: it checks GitHub (or git) before acting, and records in `state.json` what it did
// before moving the issue to the next phase.
import { join } from 'node:path';
import { AgencyError } from '../../../core/errors.ts';
import { commitChanges, type Clone, prepareClone, pushBranch } from './git-workspace.ts';
import type { GitHubComment } from './github-api.ts';
import { renderPrompt } from './prompt-template.ts';
import { commentOnce, isDirectorComment, issueOf, type IssueContext, patchIssue } from './issue-context.ts';
import { awaitTurn, takeTurn } from './issue-turns.ts';

/** What a step left: `again` (the issue moved on: run the next step now) or `wait` (nothing to do until a poll). */
export type StepResult = 'again' | 'wait';

/** The issue's branch: `<branch_prefix><number>`. */
export const branchOf = (context: IssueContext, number: number) => `${context.config.settings.branch_prefix}${number}`;

/** The issue's clone: `<workspaces>/issue-<number>`. */
export const workdirOf = (context: IssueContext, number: number) => join(context.workspaces, `issue-${number}`);

const clone = (context: IssueContext, number: number): Promise<Clone> =>
  prepareClone(workdirOf(context, number), branchOf(context, number), { ...context.git, signal: context.signal });

/** Runs the step of the issue's phase. */
export async function step(context: IssueContext, number: number): Promise<StepResult> {
  switch (issueOf(context, number).phase) {
    case 'taken':
      return take(context, number);
    case 'working':
      return work(context, number);
    case 'publishing':
      return publish(context, number);
    case 'awaiting_approval':
      return watch(context, number);
    case 'follow_up':
      return followUp(context, number);
    default:
      return 'wait';
  }
}

// 👀, the assignee, and the comments already there (they are the issue, not follow-up work).
async function take(context: IssueContext, number: number): Promise<StepResult> {
  const { api, login, config } = context;
  const reactions = await api.reactions(number);
  if (!reactions.some((r) => r.user === login && r.content === 'eyes')) await api.react(number, 'eyes');
  if (config.assignee) await api.assign(number, config.assignee);
  const seen = Math.max(0, ...(await api.comments(number)).map((comment) => comment.id));
  await patchIssue(context, number, { phase: 'working', seen_comment: seen });
  return 'again';
}

const saidLgtm = (answer: string | null) => /\bLGTM\b/i.test(answer ?? '');

// The work turn, then review turns until one says LGTM or `max_reviews` were taken.
async function work(context: IssueContext, number: number): Promise<StepResult> {
  const { dir } = await clone(context, number);
  const issue = issueOf(context, number);
  const { prompts, settings } = context.config;
  if (!issue.turn) {
    const prompt = renderPrompt(prompts.work, { number, title: issue.title, body: issue.body });
    await takeTurn(context, number, 'work', prompt, dir);
  } else if (!issue.turn.answered) await awaitTurn(context, number, dir);
  for (;;) {
    const now = issueOf(context, number);
    const reviewed = now.turn?.kind === 'review' && saidLgtm(now.answer);
    if (reviewed || now.reviews >= settings.max_reviews) break;
    await takeTurn(context, number, 'review', renderPrompt(prompts.review, now), dir);
  }
  await patchIssue(context, number, { phase: 'publishing' });
  return 'again';
}

// Commit, push, the pull request (found again if it exists), the comment linking it.
async function publish(context: IssueContext, number: number): Promise<StepResult> {
  const issue = issueOf(context, number);
  const git = { ...context.git, signal: context.signal };
  const repo = await clone(context, number);
  const ahead = await commitChanges(repo, `#${number}: ${issue.title}`, git);
  if (ahead === 0)
    throw new AgencyError('worker_task_failed', `issue #${number}: the work left nothing to commit on ${repo.branch}`, {
      details: { type: 'no_changes' },
    });
  await pushBranch(repo, git);
  let pull = issue.pull;
  if (pull === null) {
    const found = await context.api.pullFor(repo.branch);
    pull =
      found?.number ??
      (
        await context.api.createPull({
          title: issue.title,
          head: repo.branch,
          base: repo.base,
          body: `Closes #${number}\n\n${summary(issue.answer)}`,
        })
      ).number;
    await patchIssue(context, number, { pull });
  }
  const lgtm = saidLgtm(issue.answer) ? 'The review said LGTM.' : `No LGTM after ${issue.reviews} review(s).`;
  const wants = context.config.settings.require_approval ? ' Waiting for a 👍 on the pull request.' : '';
  await commentOnce(context, number, 'pull', `Opened #${pull} from \`${repo.branch}\`. ${lgtm}${wants}`);
  if (!context.config.settings.require_approval) return finish(context, number, 'without approval (not required)');
  await patchIssue(context, number, { phase: 'awaiting_approval' });
  return 'again';
}

function summary(answer: string | null): string {
  const text = (answer ?? '').trim();
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

/** New comments by others than the director on the issue and its pull request, oldest first. */
async function newComments(context: IssueContext, number: number): Promise<GitHubComment[]> {
  const issue = issueOf(context, number);
  const on = [number, ...(issue.pull ? [issue.pull] : [])];
  const comments = (await Promise.all(on.map((n) => context.api.comments(n)))).flat();
  return comments
    .filter((c) => c.id > issue.seen_comment && c.user !== context.login)
    .filter((c) => !isDirectorComment(context.config.name, c.body))
    .sort((a, b) => a.id - b.id);
}

// A 👍 from an approver → done; a new comment → follow-up work; else wait for the next poll.
async function watch(context: IssueContext, number: number): Promise<StepResult> {
  const issue = issueOf(context, number);
  const approvers = context.config.approvers;
  const reactions = await context.api.reactions(issue.pull!);
  const approval = reactions.find((r) => r.content === '+1' && approvers.includes(r.user));
  if (approval) return finish(context, number, `approved by @${approval.user}`);
  const comments = await newComments(context, number);
  if (comments.length === 0) return 'wait';
  await patchIssue(context, number, { phase: 'follow_up', follow_up: comments.map((c) => c.id) });
  return 'again';
}

async function finish(context: IssueContext, number: number, how: string): Promise<StepResult> {
  const issue = issueOf(context, number);
  await commentOnce(context, number, 'done', `Done: #${issue.pull} ${how}. It is yours to merge.`);
  if (issue.task)
    await context.dispatch.end(issue.task, { signal: context.signal }).catch((error: unknown) => {
      context.log.warn(`issue #${number}: the session could not be ended`, { error: String(error) });
    });
  await patchIssue(context, number, { phase: 'done' });
  return 'wait';
}

// The new comments as the session's next prompt; push what it changed; answer on the issue.
async function followUp(context: IssueContext, number: number): Promise<StepResult> {
  const issue = issueOf(context, number);
  const repo = await clone(context, number);
  const ids = new Set(issue.follow_up);
  const comments = (await newComments(context, number)).filter((c) => ids.has(c.id));
  if (comments.length === 0) {
    await patchIssue(context, number, { phase: 'awaiting_approval', follow_up: [] });
    return 'again';
  }
  const prompt = [
    `New comments on issue #${number} (${issue.title}) and its pull request #${issue.pull}:`,
    ...comments.map((c) => `@${c.user} wrote:\n${c.body}`),
    'Address them in the working directory.',
  ].join('\n\n');
  const sent = issue.turn?.kind === 'follow_up' && issue.turn.prompt === prompt;
  if (!sent) await takeTurn(context, number, 'follow_up', prompt, repo.dir);
  else if (!issue.turn!.answered) await awaitTurn(context, number, repo.dir);
  const git = { ...context.git, signal: context.signal };
  await commitChanges(repo, `#${number}: follow-up`, git);
  await pushBranch(repo, git);
  const last = Math.max(issue.seen_comment, ...issue.follow_up);
  const answer = summary(issueOf(context, number).answer);
  await commentOnce(context, number, `follow-up-${last}`, `Pushed a follow-up to #${issue.pull}.\n\n${answer}`);
  await patchIssue(context, number, { phase: 'awaiting_approval', seen_comment: last, follow_up: [] });
  return 'again';
}
