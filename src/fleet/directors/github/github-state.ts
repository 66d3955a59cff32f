// What the GitHub director remembers in `state.json`, so that a restart (or a kill -9 at any point) resumes each
// issue where it was without doing anything twice: its phase, its task on a worker, the turn in flight, its pull
// request, the comments already handled, and the failure being retried.
import { z } from 'zod';
import { dispatchedTaskSchema } from '../../api/director-schemas.ts';
import { sessionIdSchema } from '../../api/worker-schemas.ts';

/** Where an issue is: taken → working (work and review turns) → publishing → awaiting approval ⇄ follow-up → done. */
export const ISSUE_PHASES = [
  'taken',
  'working',
  'publishing',
  'awaiting_approval',
  'follow_up',
  'done',
  'failed',
  'closed',
] as const;
export type IssuePhase = (typeof ISSUE_PHASES)[number];

/**
 * The last prompt of the issue's session, recorded before it is sent: `turns` is the session's count of prompts once
 * it is in (a restart that finds fewer sends it again), `answered` once its answer is in `answer`.
 */
const turnSchema = z
  .object({
    kind: z.enum(['work', 'review', 'follow_up']),
    turns: z.int().positive(),
    prompt: z.string(),
    answered: z.boolean(),
  })
  .strict();
export type Turn = z.output<typeof turnSchema>;

const failureSchema = z
  .object({
    step: z.string(),
    message: z.string(),
    attempts: z.int().positive(),
    retry_at: z.number(),
    /** The number of the report comment's marker, once the failure was reported on the issue. */
    reported: z.int().nullable(),
  })
  .strict();

export const issueStateSchema = z
  .object({
    number: z.int().positive(),
    title: z.string(),
    body: z.string(),
    phase: z.enum(ISSUE_PHASES),
    task: dispatchedTaskSchema.nullable(),
    /**
     * The session of the task being handed out: recorded before the dispatch, cleared once `task` holds it. A restart
     * that finds it looks for that session's task on the workers before handing the turn out again.
     */
    placing: sessionIdSchema.nullable().default(null),
    turn: turnSchema.nullable(),
    /** The last answer of the session (the work or review turn's output). */
    answer: z.string().nullable(),
    reviews: z.int().nonnegative(),
    pull: z.int().positive().nullable(),
    /** Comments up to this id (on the issue and the pull request) are handled. */
    seen_comment: z.int().nonnegative(),
    /** The comments being answered in the follow-up phase. */
    follow_up: z.array(z.int()).default([]),
    failure: failureSchema.nullable(),
    /** How many failures were reported on the issue so far (numbers each report's marker). */
    failures_reported: z.int().nonnegative(),
  })
  .strict();
export type IssueState = z.output<typeof issueStateSchema>;

/** The GitHub director's part of `state.json`. */
export const githubStateSchema = z
  .object({
    status_issue: z.int().positive().nullable(),
    /** No GitHub request before this time (ms since the epoch): the reset time of a rate limit. */
    paused_until: z.number().nullable(),
    issues: z.record(z.string(), issueStateSchema),
  })
  .strict();
export type GitHubState = z.output<typeof githubStateSchema>;

/** The state of a director that never ran. */
export const initialGitHubState = (): GitHubState => ({ status_issue: null, paused_until: null, issues: {} });
