import type { ApprovalDecision, ApprovalRequest } from '../contracts/approvals.ts';

/** How an approval ended. */
export type ApprovalOutcome = {
  decision: ApprovalDecision['decision'];
  decidedBy: string;
  at: string;
  reason?: string;
};

/**
 * A decision that could not be acted on, and why. `file` is the decision file relative to the task root (e.g.
 * `progress/approvals/decisions/req_01J….json`); `problem` says what is wrong and what to do, without the file name.
 */
export type InvalidDecision = { id: string; file: string; problem: string };

/** Options for {@link ApprovalBroker.await}. */
export type AwaitApprovalOptions = {
  signal?: AbortSignal | undefined;
  /** Called for every decision that is malformed, stale or conflicting; the broker keeps waiting. */
  onInvalid?: ((invalid: InvalidDecision) => void) | undefined;
};

/**
 * Where approvals are requested and decided. Implementations: `FileBroker` (request and decision files under
 * `progress/approvals/`), `InMemoryBroker` (tests).
 */
export type ApprovalBroker = {
  /** Records a request. Idempotent: submitting the same id again changes nothing. */
  submit(request: ApprovalRequest): Promise<void>;
  /**
   * Waits for a valid decision on a submitted request, or for its `expires_at`. A decision is valid only if it is
   * well-formed, names the request's id, and carries the request's `plan_sig` (plans) or `args_digest` (tools).
   */
  await(id: string, options?: AwaitApprovalOptions): Promise<ApprovalOutcome>;
  /**
   * The request and its valid decision, if any. When a decision exists but cannot be acted on, `invalid` says why
   * (and `decision` is absent).
   */
  get(id: string): Promise<{ request?: ApprovalRequest; decision?: ApprovalDecision; invalid?: InvalidDecision }>;
  /** Requests that have no valid decision yet. */
  pending(): Promise<ApprovalRequest[]>;
};
