// The status issue: `[<name>] status`, opened when the director starts (or found again after a restart), its body
// rewritten with what the director is doing whenever that changes, and closed at a clean shutdown.
import type { GitHubState } from './github-state.ts';
import type { IssueContext } from './issue-context.ts';

/** The status issue's title. */
export const statusTitle = (name: string) => `[${name}] status`;

/** The status issue's body: one line per issue the director holds. */
export function statusBody(state: GitHubState, name: string): string {
  const issues = Object.values(state.issues).sort((a, b) => a.number - b.number);
  const lines = issues.map((issue) => {
    const pull = issue.pull ? `, pull request #${issue.pull}` : '';
    const failure = issue.failure ? ` — last failure: ${issue.failure.message.split('\n')[0]}` : '';
    return `- #${issue.number}: ${issue.phase.replace('_', ' ')}${pull}${failure}`;
  });
  const paused = state.paused_until ? `\n\nRate limited until ${new Date(state.paused_until).toISOString()}.` : '';
  return `The agency director **${name}** is running.\n\n${lines.join('\n') || 'No issues yet.'}${paused}`;
}

/** Opens the status issue, or finds the one a previous run left open; records its number. */
export async function openStatusIssue(context: IssueContext): Promise<number> {
  const known = context.state.get().status_issue;
  if (known) return known;
  const title = statusTitle(context.config.name);
  const body = statusBody(context.state.get(), context.config.name);
  const found = (await context.api.openIssues()).find((issue) => issue.title === title);
  const number = found?.number ?? (await context.api.createIssue(title, body));
  await context.state.update((state) => ({ ...state, status_issue: number }));
  return number;
}

/** Rewrites the status issue's body when it changed since `last`; returns the body now shown. */
export async function refreshStatusIssue(context: IssueContext, last: string | undefined): Promise<string | undefined> {
  const number = context.state.get().status_issue;
  if (!number) return last;
  const body = statusBody(context.state.get(), context.config.name);
  if (body === last) return last;
  await context.api.updateIssue(number, { body });
  return body;
}

/** Closes the status issue at a clean shutdown. */
export async function closeStatusIssue(context: IssueContext): Promise<void> {
  const number = context.state.get().status_issue;
  if (!number) return;
  await context.api.updateIssue(number, {
    state: 'closed',
    body: `The agency director **${context.config.name}** stopped.`,
  });
  await context.state.update((state) => ({ ...state, status_issue: null }));
}
