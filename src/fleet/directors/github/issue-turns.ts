// The issue's session on a worker: the first prompt dispatched with the clone as its workdir, each later one a
// `continue` of the same session (work → review → follow-up keep the executor's context). Each prompt is recorded
// before it is sent; a restart settles the task and sends the prompt again only when the session does not have it.
// A new task's session is recorded (`placing`) before it is dispatched, so a restart that finds it looks for that
// session's task on the workers (placement.ts) instead of dispatching the turn a second time.
// A turn holds the clone's workspace lock from before its prompt is sent until its answer is in.
import { randomUUID } from 'node:crypto';
import { AgencyError } from '../../../core/errors.ts';
import type { WorkspaceLock } from '../director.ts';
import type { DispatchedTask, DispatchOutcome } from '../task-dispatch.ts';
import type { Turn } from './github-state.ts';
import { issueOf, type IssueContext, patchIssue } from './issue-context.ts';

/**
 * Sends `prompt` as the issue's next turn (a new task in `workdir` when it has none) and waits for its answer.
 * Resolves with the answer, also kept in the issue's `answer`.
 */
export async function takeTurn(
  context: IssueContext,
  number: number,
  kind: Turn['kind'],
  prompt: string,
  workdir: string,
): Promise<string> {
  const issue = issueOf(context, number);
  const turns = issue.task ? (issue.turn?.turns ?? 0) + 1 : 1;
  await patchIssue(context, number, {
    turn: { kind, turns, prompt, answered: false },
    ...(kind === 'review' ? { reviews: issue.reviews + 1 } : {}),
  });
  return withLock(context, number, workdir, async (lock) => {
    if (issue.task) await context.dispatch.continue(issue.task, prompt, { signal: context.signal });
    return settleTurn(context, number, lock);
  });
}

/**
 * Waits for the answer to the issue's recorded turn: dispatches it when no task holds it, sends it again when the
 * session has fewer prompts than the turn, and re-dispatches it on a new task when the worker was lost (with
 * `on_worker_lost: requeue`).
 *
 * @throws AgencyError `worker_task_failed` when the task failed, was cancelled, or was lost with `report`.
 */
export function awaitTurn(context: IssueContext, number: number, workdir: string): Promise<string> {
  return withLock(context, number, workdir, (lock) => settleTurn(context, number, lock));
}

// Runs `turn` under the workdir's lock (taken back for the issue's task after a restart). A lock whose task is still
// in flight when the director must stop is kept: the next start resumes that task under it.
async function withLock<T>(
  context: IssueContext,
  number: number,
  workdir: string,
  turn: (lock: WorkspaceLock) => Promise<T>,
): Promise<T> {
  const task = issueOf(context, number).task;
  const lock = await context.locks.acquire(workdir, { purpose: `issue #${number}`, ...(task ? { resume: task } : {}) });
  try {
    if (task) await lock.attach(task);
    return await turn(lock);
  } finally {
    if (!context.signal.aborted || !issueOf(context, number).task) await lock.release();
  }
}

async function settleTurn(context: IssueContext, number: number, lock: WorkspaceLock): Promise<string> {
  for (;;) {
    const issue = issueOf(context, number);
    let turn = issue.turn;
    if (!turn) throw new Error(`issue #${number} has no turn to wait for`);
    let task = issue.task;
    if (!task) {
      task = await placeTurn(context, number, turn.prompt, lock.workdir);
      turn = { ...turn, turns: 1 };
      await patchIssue(context, number, { task, turn, placing: null });
      await lock.attach(task);
    }
    let outcome = await context.dispatch.settle(task, { signal: context.signal });
    if (outcome.state !== 'lost' && outcome.task.turns < turn.turns) {
      await context.dispatch.continue(task, turn.prompt, { signal: context.signal });
      outcome = await context.dispatch.settle(task, { signal: context.signal });
    }
    if (outcome.state === 'idle' || outcome.state === 'completed') {
      const answer = outcome.task.output ?? '';
      await patchIssue(context, number, { turn: { ...turn, answered: true }, answer });
      return answer;
    }
    if (outcome.state === 'lost' && context.config.settings.on_worker_lost === 'requeue') {
      context.log.warn(`issue #${number}: worker lost; dispatching the turn again`, { task: task.task_id });
      await patchIssue(context, number, { task: null });
      continue;
    }
    throw turnFailure(number, outcome);
  }
}

// The turn's new task: the one a worker took before a restart, if the recorded session is found on one, else a
// dispatch in a session recorded first.
async function placeTurn(
  context: IssueContext,
  number: number,
  prompt: string,
  workdir: string,
): Promise<DispatchedTask> {
  const { dispatch, signal } = context;
  let placing = issueOf(context, number).placing;
  if (placing) {
    const found = await dispatch.find?.({ session_id: placing, worker: null });
    if (found) {
      context.log.info(`issue #${number}: found its task on ${found.worker.name} after a restart`, {
        task: found.task_id,
      });
      return found;
    }
  } else {
    placing = randomUUID();
    await patchIssue(context, number, { placing });
  }
  return dispatch.dispatch({ prompt, workdir, session_id: placing }, { signal });
}

function turnFailure(number: number, outcome: DispatchOutcome) {
  const type = 'error' in outcome ? outcome.error.type : outcome.state;
  const message = 'error' in outcome ? outcome.error.message : `the task ended ${outcome.state}`;
  return new AgencyError('worker_task_failed', `issue #${number}: the worker's task ${type}: ${message}`, {
    details: { type },
  });
}
