import { errnoCode } from '../../../core/errno.ts';
import { AgencyError } from '../../../core/errors.ts';
import type { ApprovalDecision, ApprovalRequest } from '../../contracts/approvals.ts';
import type { ApprovalOutcome, AwaitApprovalOptions, InvalidDecision } from '../broker.ts';
import type { TaskFiles } from '../../fs/task-files.ts';
import { bindingOf, checkDecisionText, conflictProblem, sameDecision, toOutcome } from '../validate-decision.ts';
import { approvalDirs, formatJson, type RequestFiles, requestFiles } from './approval-files.ts';
import { type CheckReason, type Recheck, waitForChange } from './wait-for-change.ts';

import { createFileExclusive } from './write-file.ts';

/** What the file broker's `await` needs from its broker. */
export type AwaitContext = {
  progressDir: string;
  mode: 'file' | 'auto';
  now: () => number;
  pollMs: number;
  /** The broker's view of `progressDir`: confined, never through a link. */
  files: TaskFiles;
  /** The first valid decision acted on, per request id: it stands, whatever the file says later. */
  acted: Map<string, ApprovalDecision>;
};

type Look = { text?: string; problem?: string; decision?: ApprovalDecision };

// How long invalid content must stay unchanged before it is reported (capped by pollMs).
const SETTLE_MS = 50;

/** Waits for a valid decision file, the request's expiry, or an abort. See `ApprovalBroker.await`. */
export async function awaitDecision(
  ctx: AwaitContext,
  request: ApprovalRequest,
  { signal, onInvalid }: AwaitApprovalOptions = {},
): Promise<ApprovalOutcome> {
  const files = requestFiles(ctx.progressDir, request.id);
  const report = (problem: string) => onInvalid?.({ id: request.id, file: files.shownDecision, problem });
  const first = ctx.acted.get(request.id);
  if (first !== undefined) {
    const look = await lookAt(ctx.files, files, request);
    if (look.text !== undefined && !(look.decision !== undefined && sameDecision(look.decision, first))) {
      report(look.decision === undefined ? (look.problem ?? '') : conflictProblem(first));
    }
    return toOutcome(first);
  }

  const reported = new Set<string>();
  const settleMs = Math.min(ctx.pollMs, SETTLE_MS);
  let candidate: { text: string; since: number } | undefined;
  // Invalid content is reported once it has stayed the same for settleMs, so a writer caught mid-write is not
  // reported for every chunk it writes; at expiry it is reported at once, before the expiry record replaces it.
  const noteInvalid = (look: Look, recheck: Recheck, force: boolean) => {
    if (look.text === undefined || look.problem === undefined) return void (candidate = undefined);
    if (reported.has(look.text)) return;
    const at = performance.now();
    if (candidate?.text !== look.text) candidate = { text: look.text, since: at };
    const waited = at - candidate.since;
    if (!force && waited < settleMs - 1) return recheck(settleMs - waited);
    reported.add(look.text);
    report(look.problem);
  };

  const step = async (_reason: CheckReason, recheck: Recheck): Promise<ApprovalOutcome | undefined> => {
    let look = await lookAt(ctx.files, files, request);
    if (look.decision !== undefined) return act(ctx, look.decision);
    const expired = ctx.now() >= Date.parse(request.expires_at);
    noteInvalid(look, recheck, expired);
    if (expired) return expire(ctx, request, files, look);
    if (ctx.mode === 'auto' && look.text === undefined) {
      await createFileExclusive(ctx.files, files.decision, formatJson(autoDecision(ctx, request)), { durable: false });
      look = await lookAt(ctx.files, files, request);
      if (look.decision !== undefined) return act(ctx, look.decision);
    }
    return undefined;
  };

  return waitForChange(step, {
    dir: approvalDirs(ctx.progressDir).decisions,
    fileName: `${request.id}.json`,
    pollMs: ctx.pollMs,
    signal,
  });
}

/** The problem with the decision file, as a broker would report it; undefined when absent or valid. */
export function invalidOf(files: RequestFiles, id: string, problem: string | undefined): InvalidDecision | undefined {
  return problem === undefined ? undefined : { id, file: files.shownDecision, problem };
}

/** Reads and checks the decision file of `request`. */
export async function lookAt(io: TaskFiles, files: RequestFiles, request: ApprovalRequest | undefined): Promise<Look> {
  let text: string | undefined;
  try {
    text = await io.readText(files.decision);
  } catch (error) {
    const code = errnoCode(error) ?? (AgencyError.isInstance(error) ? error.code : 'unknown error');
    return { text: `\0unreadable:${code}`, problem: `cannot be read (${code}); make it a readable regular file` };
  }
  if (text === undefined) return {};
  const check = checkDecisionText(text, files.id, request);
  return check.ok ? { text, decision: check.decision } : { text, problem: check.problem };
}

function act(ctx: AwaitContext, decision: ApprovalDecision): ApprovalOutcome {
  const first = ctx.acted.get(decision.id);
  if (first !== undefined) return toOutcome(first);
  ctx.acted.set(decision.id, decision);
  return toOutcome(decision);
}

async function expire(
  ctx: AwaitContext,
  request: ApprovalRequest,
  files: RequestFiles,
  look: Look,
): Promise<ApprovalOutcome | undefined> {
  const decision: ApprovalDecision = {
    id: request.id,
    decision: 'expired',
    approved_by: 'agency',
    timestamp: new Date(ctx.now()).toISOString(),
    ...bindingOf(request),
    reason: `no valid decision by ${request.expires_at}`,
  };
  if (look.text === undefined) {
    // A decision may land between the look and this write: then it is looked at on the next check instead.
    if (!(await createFileExclusive(ctx.files, files.decision, formatJson(decision), { durable: false }))) {
      return undefined;
    }
  } else {
    // The invalid file was reported above; the expiry record replaces it so the folder says what happened.
    await ctx.files.write(files.decision, formatJson(decision));
  }
  return act(ctx, decision);
}

function autoDecision(ctx: AwaitContext, request: ApprovalRequest): ApprovalDecision {
  return {
    id: request.id,
    decision: 'approved',
    approved_by: 'auto',
    timestamp: new Date(ctx.now()).toISOString(),
    ...bindingOf(request),
    reason: 'approvals mode is "auto"',
  };
}
