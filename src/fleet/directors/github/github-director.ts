// The GitHub director: polls one repository every `poll_interval`, takes the issues whose title starts with
// `[<name>]` (or that carry the configured label), and moves each through its steps (issue-steps.ts) on a runner of
// its own, so a long task on one issue does not hold up the others. Everything it did is in `state.json`, so a
// restart resumes each issue where it was. It never merges.
import { sleep } from '../../../core/clock.ts';
import { AgencyError, errorMessage } from '../../../core/errors.ts';
import type { DirectorActivity } from '../director.ts';
import type { GitHubIssue } from './github-api.ts';
import type { IssueState } from './github-state.ts';
import { type GitHubDirectorDeps, type IssueContext, issueOf, patchIssue } from './issue-context.ts';
import { backoffFor, recordFailure } from './issue-failures.ts';
import { recordPhase } from './issue-history.ts';
import { step } from './issue-steps.ts';
import { closeStatusIssue, openStatusIssue, refreshStatusIssue, statusTitle } from './status-issue.ts';

/** A running GitHub director. */
export type GitHubDirector = {
  /** Works until `stopping` aborts, then lets its issues' steps finish (or `signal` abort) and closes its status issue. */
  run(): Promise<void>;
  status(): DirectorActivity;
};

const ACTIVE_PHASES = new Set<IssueState['phase']>([
  'taken',
  'working',
  'publishing',
  'awaiting_approval',
  'follow_up',
]);

/** Makes the GitHub director; nothing happens until `run()`. */
export function createGitHubDirector(deps: GitHubDirectorDeps): GitHubDirector {
  const runners = new Map<number, { promise: Promise<void>; since: string }>();
  let context: IssueContext | undefined;
  let shown: string | undefined;

  const startRunner = (ctx: IssueContext, number: number) => {
    const promise = runIssue(ctx, number).finally(() => runners.delete(number));
    runners.set(number, { promise, since: new Date(ctx.timers.now()).toISOString() });
  };

  const tick = async (ctx: IssueContext) => {
    const state = ctx.state.get();
    if (state.paused_until && state.paused_until > ctx.timers.now()) return;
    const open = await ctx.api.openIssues();
    if (state.paused_until) await ctx.state.update((s) => ({ ...s, paused_until: null }));
    await track(ctx, open);
    for (const issue of Object.values(ctx.state.get().issues)) {
      if (ctx.stopping.aborted || runners.has(issue.number) || !ACTIVE_PHASES.has(issue.phase)) continue;
      if (issue.failure && issue.failure.retry_at > ctx.timers.now()) continue;
      startRunner(ctx, issue.number);
    }
    shown = await refreshStatusIssue(ctx, shown).catch((error: unknown) => {
      ctx.log.warn(`the status issue could not be updated: ${errorMessage(error)}`);
      return shown;
    });
  };

  const run = async () => {
    const ctx = (context = { ...deps, login: await untilAnswered(deps, () => deps.api.me()) });
    await untilAnswered(deps, () => openStatusIssue(ctx));
    deps.log.info(`watching ${deps.config.repo} as ${ctx.login}`, { status_issue: ctx.state.get().status_issue });
    while (!deps.stopping.aborted) {
      await tick(ctx).catch((error: unknown) => pollFailed(ctx, error));
      await sleep(deps.config.poll_interval, deps.stopping, deps.timers).catch(() => undefined);
    }
    const aborted = new Promise<void>((resolve) => {
      if (deps.signal.aborted) resolve();
      deps.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.race([Promise.all([...runners.values()].map((runner) => runner.promise)), aborted]);
    if (deps.signal.aborted) return;
    await closeStatusIssue(ctx).catch((error: unknown) => {
      deps.log.warn(`the status issue could not be closed: ${errorMessage(error)}`);
    });
  };

  const status = (): DirectorActivity => {
    const [number, runner] = [...runners.entries()][0] ?? [];
    const issue = number !== undefined && context ? context.state.get().issues[String(number)] : undefined;
    return {
      state: runners.size > 0 ? 'working' : 'idle',
      current_task:
        issue && runner
          ? {
              id: `issue-${issue.number}`,
              started_at: runner.since,
              prompt_preview: `#${issue.number} ${issue.title}`.slice(0, 200),
            }
          : null,
      config: {
        repo: deps.config.repo,
        api_url: deps.config.api_url,
        issues: Object.keys(deps.state.get().issues).length,
      },
    };
  };
  return { run, status };
}

// Runs issue `number`'s steps until one waits for a poll (or shutdown begins); a failure is recorded, not thrown.
async function runIssue(ctx: IssueContext, number: number): Promise<void> {
  try {
    while (!ctx.stopping.aborted) {
      const result = await step(ctx, number);
      if (issueOf(ctx, number).failure) await patchIssue(ctx, number, { failure: null });
      if (result === 'wait') break;
    }
  } catch (error) {
    await recordFailure(ctx, number, error).catch((cause: unknown) => {
      ctx.log.error(`issue #${number}: the failure could not be recorded: ${errorMessage(cause)}`);
    });
  }
}

/** The issues of `open` the director takes: `[<name>]` titles or the label; not its status issue. */
export function isDirectorIssue(config: { name: string; label?: string | undefined }, issue: GitHubIssue): boolean {
  if (issue.title === statusTitle(config.name)) return false;
  return issue.title.startsWith(`[${config.name}]`) || (!!config.label && issue.labels.includes(config.label));
}

// New issues enter `taken`; an issue waiting for approval that was closed meanwhile is `closed`.
async function track(ctx: IssueContext, open: GitHubIssue[]): Promise<void> {
  const known = ctx.state.get().issues;
  const openNumbers = new Set(open.map((issue) => issue.number));
  const fresh = open.filter((issue) => isDirectorIssue(ctx.config, issue) && !known[String(issue.number)]);
  const closed = Object.values(known).filter(
    (issue) => issue.phase === 'awaiting_approval' && !openNumbers.has(issue.number),
  );
  if (fresh.length === 0 && closed.length === 0) return;
  await ctx.state.update((state) => {
    const issues = { ...state.issues };
    for (const issue of fresh) issues[String(issue.number)] = newIssue(issue);
    for (const issue of closed) issues[String(issue.number)] = { ...issue, phase: 'closed' };
    return { ...state, issues };
  });
  for (const issue of [...fresh, ...closed]) await recordPhase(ctx, issueOf(ctx, issue.number));
  for (const issue of fresh) ctx.log.info(`issue #${issue.number} taken: ${issue.title}`);
}

function newIssue(issue: GitHubIssue): IssueState {
  return {
    ...{ number: issue.number, title: issue.title, body: issue.body, phase: 'taken', task: null, placing: null },
    ...{
      turn: null,
      answer: null,
      reviews: 0,
      pull: null,
      seen_comment: 0,
      follow_up: [],
      failure: null,
      failures_reported: 0,
    },
  };
}

async function pollFailed(ctx: IssueContext, error: unknown): Promise<void> {
  const failure = AgencyError.from(error);
  ctx.log.warn(`polling ${ctx.config.repo} failed: ${failure.message}`, { code: failure.code });
  if (failure.code === 'github_rate_limit' && typeof failure.details?.retryAt === 'number') {
    const retryAt = failure.details.retryAt;
    await ctx.state.update((state) => ({ ...state, paused_until: retryAt }));
  }
}

// Start-up calls (who am I, the status issue): retried with the configured backoff until they answer or `stopping`.
async function untilAnswered<T>(deps: GitHubDirectorDeps, call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const failure = AgencyError.from(error);
      if (!failure.retryable || deps.stopping.aborted) throw failure;
      const retryAt = failure.details?.retryAt;
      const wait = typeof retryAt === 'number' ? Math.max(0, retryAt - deps.timers.now()) : backoffFor(deps, attempt);
      deps.log.warn(`${failure.message}; trying again in ${wait} ms`, { code: failure.code });
      await sleep(wait, deps.stopping, deps.timers);
    }
  }
}
