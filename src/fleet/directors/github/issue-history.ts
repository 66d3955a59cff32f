// Each issue the GitHub director takes is one entry of its history (`GET /history/issue-<n>`): where it is, its task
// and pull request, and a line each time its phase changes or a step fails.
import { type DirectorEntryState, FINAL_DIRECTOR_ENTRY_STATES } from '../../api/director-schemas.ts';
import type { IssuePhase, IssueState } from './github-state.ts';
import type { GitHubDirectorDeps } from './issue-context.ts';

const ENTRY_STATES: Record<IssuePhase, DirectorEntryState> = {
  taken: 'waiting',
  working: 'running',
  publishing: 'running',
  awaiting_approval: 'running',
  follow_up: 'running',
  done: 'completed',
  failed: 'failed',
  closed: 'cancelled',
};

/** The history entry id of issue `number`. */
export const issueEntryId = (number: number) => `issue-${number}`;

/** Writes issue's entry as its record says now, with `message` (by default its new phase) as the next log line. */
export async function recordPhase(
  deps: Pick<GitHubDirectorDeps, 'history' | 'timers'>,
  issue: IssueState,
  message = `phase: ${issue.phase}`,
  level: 'info' | 'warn' = 'info',
): Promise<void> {
  const id = issueEntryId(issue.number);
  const now = new Date(deps.timers.now()).toISOString();
  const entry = await deps.history.read(id);
  const state = ENTRY_STATES[issue.phase];
  const final = (FINAL_DIRECTOR_ENTRY_STATES as readonly string[]).includes(state);
  await deps.history.save({
    id,
    kind: 'issue',
    title: `#${issue.number} ${issue.title}`.slice(0, 500),
    state,
    started_at: entry?.started_at ?? now,
    finished_at: final ? (entry?.finished_at ?? now) : null,
    task: issue.task,
    result: null,
    details: { number: issue.number, phase: issue.phase, pull: issue.pull, reviews: issue.reviews },
    log: [...(entry?.log ?? []), { time: now, level, message }],
  });
}
