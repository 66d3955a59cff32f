import type { ApprovalOutcome } from './approvals/broker.ts';
import type { ApprovalRequest } from './contracts/approvals.ts';
import type { Session } from './session.ts';

/** A request before it has an id and timestamps. */
export type ApprovalAsk =
  | { type: 'plan'; planPath: string; planSig: string; rationale: string }
  | {
      type: 'tool';
      toolName: string;
      toolArgs: unknown;
      argsDigest: string;
      toolCallId: string;
      planSig: string | null;
      rationale: string;
    };

/**
 * Asks for an approval and waits for it: `approval.requested` is journaled and made durable, the request file is
 * written, and `state.json` says the run is waiting. Invalid decision files are journaled as `approval.invalid`
 * while the wait goes on. A run resumed while waiting reuses its earlier request instead of making a new one.
 */
export async function askApproval(session: Session, step: string, ask: ApprovalAsk): Promise<ApprovalOutcome> {
  const key = `${step}:${ask.type === 'plan' ? ask.planSig : ask.argsDigest}`;
  const id = session.fold.approvals.get(key) ?? session.newId('req');
  const createdAt = new Date(session.now()).toISOString();
  const expiresAt = new Date(session.now() + session.spec.approvals.expires_in_ms).toISOString();
  const request: ApprovalRequest =
    ask.type === 'plan'
      ? {
          id,
          type: 'plan',
          task_id: session.spec.task_id,
          plan_path: ask.planPath,
          plan_sig: ask.planSig,
          rationale: ask.rationale,
          created_at: createdAt,
          expires_at: expiresAt,
        }
      : {
          id,
          type: 'tool',
          task_id: session.spec.task_id,
          tool_name: ask.toolName,
          tool_args: ask.toolArgs,
          args_digest: ask.argsDigest,
          tool_call_id: ask.toolCallId,
          rationale: ask.rationale,
          plan_sig: ask.planSig,
          created_at: createdAt,
          expires_at: expiresAt,
        };
  // Journal the request before writing its file, so a run killed in between finds the id and reuses it: no request
  // file is ever left without its journal entry.
  if (!session.fold.approvals.has(key)) {
    session.fold.approvals.set(key, id);
    session.emit({
      type: 'approval.requested',
      step,
      message:
        ask.type === 'plan' ? `Plan approval requested (${id})` : `Approval requested for ${ask.toolName} (${id})`,
      data: {
        id,
        type: ask.type,
        rationale: ask.rationale,
        expires_at: expiresAt,
        ...(ask.type === 'plan'
          ? { plan_sig: ask.planSig, plan_path: ask.planPath }
          : { tool: ask.toolName, args_digest: ask.argsDigest }),
      },
    });
    await session.journal.flush();
  }
  if (!(await session.broker.get(id)).request) await session.broker.submit(request);
  await session.boundary({ status: 'waiting_approval' });
  const outcome = await session.broker.await(id, {
    signal: session.signal,
    onInvalid: (invalid) => {
      session.emit({
        type: 'approval.invalid',
        step,
        message: `${invalid.file}: ${invalid.problem}`,
        data: { id: invalid.id, file: invalid.file, problem: invalid.problem },
      });
      void session.journal.flush().catch(() => {});
    },
  });
  session.emit({
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
  });
  await session.boundary({ status: 'running' });
  return outcome;
}
