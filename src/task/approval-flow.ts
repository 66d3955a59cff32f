import { countApproval } from '../obs/metrics.ts';
import type { ApprovalOutcome, InvalidDecision } from './approvals/broker.ts';
import type { ApprovalRequest, PlanChanges } from './contracts/approvals.ts';
import type { EventInput } from './contracts/events.ts';
import type { Session } from './session.ts';

/** A request before it has an id and timestamps. */
export type ApprovalAsk =
  | { type: 'plan'; planPath: string; planSig: string; rationale: string; changes?: PlanChanges | undefined }
  | {
      type: 'tool';
      toolName: string;
      toolArgs: unknown;
      argsDigest: string;
      toolCallId: string;
      planSig: string | null;
      rationale: string;
      /**
       * Asks whether to run again a call journaled without its result. It never reuses the decision that let the
       * call run the first time: that decision covered one run, not a second one.
       */
      uncertain?: boolean;
    };

/**
 * Asks for an approval and waits for it: `approval.requested` (holding the whole request) is journaled and made
 * durable, the request file is written, and `state.json` says the run is waiting. Invalid decision files are
 * journaled as `approval.invalid` while the wait goes on. A run resumed while waiting reuses its earlier request
 * instead of making a new one. The decision is journaled as `approval.decided` and made durable with the step's
 * next commit.
 */
export async function askApproval(session: Session, step: string, ask: ApprovalAsk): Promise<ApprovalOutcome> {
  const key =
    ask.type === 'plan'
      ? `${step}:${ask.planSig}`
      : `${step}:${ask.argsDigest}${ask.uncertain ? `:uncertain:${ask.toolCallId}` : ''}`;
  const earlier = session.fold.approvals.get(key);
  const journaled = earlier === undefined ? undefined : session.fold.decisions.get(earlier);
  // Decided before a crash: the journal's record stands, whatever the decision file says now. An expired request
  // is the exception: a run resumed after it asks again, with a new request.
  if (journaled && journaled.decision !== 'expired') return journaled;
  const fresh = earlier === undefined || journaled !== undefined;
  const id = fresh ? session.newId('req') : earlier;
  const request = session.redact(requestOf(session, id, ask));
  // Journal the request before writing its file, so a run killed in between finds the id and reuses it: no request
  // file is ever left without its journal entry.
  if (fresh) {
    session.fold.approvals.set(key, id);
    session.emit(requestedEvent(step, ask, request));
    await session.journal.flush();
  }
  if (!(await session.broker.get(id)).request) await session.broker.submit(request);
  await session.boundary({ status: 'waiting_approval' });
  const outcome = await session.broker.await(id, {
    signal: session.signal,
    onInvalid: (invalid) => journalInvalid(session, step, invalid),
  });
  session.emit(decidedEvent(step, id, ask, outcome));
  countApproval(outcome.decision, ask.type);
  session.fold.decisions.set(id, outcome);
  session.update({ status: 'running' });
  return outcome;
}

function requestOf(session: Session, id: string, ask: ApprovalAsk): ApprovalRequest {
  const createdAt = new Date(session.now()).toISOString();
  const expiresAt = new Date(session.now() + session.spec.approvals.expires_in_ms).toISOString();
  const task_id = session.spec.task_id;
  if (ask.type === 'plan') {
    return {
      id,
      type: 'plan',
      task_id,
      plan_path: ask.planPath,
      plan_sig: ask.planSig,
      rationale: ask.rationale,
      changes: ask.changes,
      created_at: createdAt,
      expires_at: expiresAt,
    };
  }
  return {
    id,
    type: 'tool',
    task_id,
    tool_name: ask.toolName,
    tool_args: ask.toolArgs,
    args_digest: ask.argsDigest,
    tool_call_id: ask.toolCallId,
    rationale: ask.rationale,
    plan_sig: ask.planSig,
    created_at: createdAt,
    expires_at: expiresAt,
  };
}

// The frame holds the whole request, so a request file lost in a power loss is rebuilt from it.
function requestedEvent(step: string, ask: ApprovalAsk, request: ApprovalRequest): EventInput {
  const { id } = request;
  return {
    type: 'approval.requested',
    step,
    message: ask.type === 'plan' ? `Plan approval requested (${id})` : `Approval requested for ${ask.toolName} (${id})`,
    data: {
      id,
      type: ask.type,
      rationale: ask.rationale,
      expires_at: request.expires_at,
      ...(ask.type === 'plan'
        ? { plan_sig: ask.planSig, plan_path: ask.planPath, changes: ask.changes }
        : { tool: ask.toolName, args_digest: ask.argsDigest }),
      request,
    },
  };
}

// `onInvalid` is synchronous and the wait goes on, so the flush is not awaited and its failure is ignored here.
function journalInvalid(session: Session, step: string, invalid: InvalidDecision): void {
  session.emit({
    type: 'approval.invalid',
    step,
    message: `${invalid.file}: ${invalid.problem}`,
    data: { id: invalid.id, file: invalid.file, problem: invalid.problem },
  });
  void session.journal.flush().catch(() => {});
}

function decidedEvent(step: string, id: string, ask: ApprovalAsk, outcome: ApprovalOutcome): EventInput {
  return {
    type: 'approval.decided',
    step,
    message: `${ask.type === 'plan' ? 'Plan' : ask.toolName} ${outcome.decision} by ${outcome.decidedBy}`,
    data: {
      id,
      type: ask.type,
      decision: outcome.decision,
      by: outcome.decidedBy,
      at: outcome.at,
      ...(outcome.reason ? { reason: outcome.reason } : {}),
      ...(ask.type === 'plan' ? { plan_sig: ask.planSig } : { args_digest: ask.argsDigest }),
    },
  };
}
