// What the GitHub director does when an issue's step fails: a retryable failure (GitHub 5xx or no answer, a git
// command, a lost worker) waits with exponential backoff and jitter, a rate limit waits for GitHub's reset time, a
// fatal one (a refused request, a failed task) stops the issue. Each failure is reported as one comment on the issue,
// not one per retry.
import { backoffDelay } from '../../../core/backoff.ts';
import { AgencyError, errorMessage } from '../../../core/errors.ts';
import { defaultRedactor } from '../../../core/redact.ts';
import { recordPhase } from './issue-history.ts';
import { commentOnce, type GitHubDirectorDeps, issueOf, type IssueContext, patchIssue } from './issue-context.ts';

/** The wait before retry number `attempt`: `initial_backoff` doubling up to `max_backoff`, with jitter. */
export function backoffFor(deps: GitHubDirectorDeps, attempt: number): number {
  const { initial_backoff, max_backoff } = deps.config.settings;
  return backoffDelay(attempt, {
    initialMs: initial_backoff,
    maxMs: max_backoff,
    ...(deps.random ? { random: deps.random } : {}),
  });
}

/** Records the failure of issue `number`'s step, schedules its retry (or stops the issue) and reports it once. */
export async function recordFailure(context: IssueContext, number: number, error: unknown): Promise<void> {
  const failure = AgencyError.from(error);
  if (failure.code === 'aborted' && context.signal.aborted) return;
  const issue = issueOf(context, number);
  const attempts = (issue.failure?.attempts ?? 0) + 1;
  const retryAt =
    failure.code === 'github_rate_limit' && typeof failure.details?.retryAt === 'number'
      ? failure.details.retryAt
      : context.timers.now() + backoffFor(context, attempts);
  const message = defaultRedactor.redactText(failure.message);
  if (failure.code === 'github_rate_limit')
    await context.state.update((state) => ({ ...state, paused_until: retryAt }));
  const retry = failure.retryable
    ? `retrying (attempt ${attempts}, next at ${new Date(retryAt).toISOString()})`
    : 'stopped';
  context.log.warn(`issue #${number}: ${issue.phase} failed, ${retry}: ${message}`, { code: failure.code });
  // Reported before it is recorded: a restart in between fails again and finds the report by its marker.
  const reported = issue.failure?.reported ?? (await report(context, number, failure, message));
  const recorded = await patchIssue(context, number, {
    failure: { step: issue.phase, message, attempts, retry_at: retryAt, reported },
    ...(reported === null ? {} : { failures_reported: reported }),
    ...(failure.retryable ? {} : { phase: 'failed' }),
  });
  await recordPhase(context, recorded, `${issue.phase} failed, ${retry}: ${message}`, 'warn');
}

// Comments on the issue; resolves with the report's number, or null when GitHub would not take it.
async function report(
  context: IssueContext,
  number: number,
  failure: AgencyError,
  message: string,
): Promise<number | null> {
  const key = issueOf(context, number).failures_reported + 1;
  const next = failure.retryable
    ? 'The director retries with backoff; this is reported once.'
    : 'The director stopped working on this issue.';
  try {
    await commentOnce(context, number, `failure-${key}`, `⚠️ ${failure.code}: ${message}\n\n${next}`);
    return key;
  } catch (error) {
    context.log.warn(`issue #${number}: the failure could not be reported on GitHub: ${errorMessage(error)}`);
    return null;
  }
}
