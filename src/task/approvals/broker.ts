import type { ApprovalDecision, ApprovalRequest } from '../contracts/approvals.ts';

/** How an approval ended. */
export type ApprovalOutcome = {
  decision: ApprovalDecision['decision'];
  decidedBy: string;
  at: string;
  reason?: string;
};

/** A decision file that could not be acted on, and why. */
export type InvalidDecision = { id: string; file: string; problem: string };

/** Options for {@link ApprovalBroker.await}. */
export type AwaitApprovalOptions = {
  signal?: AbortSignal;
  /** Called for every decision that is malformed, stale or conflicting; the broker keeps waiting. */
  onInvalid?: (invalid: InvalidDecision) => void;
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
  /** The request and its decision, if any. */
  get(id: string): Promise<{ request?: ApprovalRequest; decision?: ApprovalDecision }>;
  /** Requests that have no decision yet. */
  pending(): Promise<ApprovalRequest[]>;
};
